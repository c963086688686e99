package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/watchers"
)

// The model deletes the tailed log and copies a link to a file outside the
// folder onto its name. The tail must not read the outside file: its
// lines would go into the next prompt.
func TestHostileModelCannotLeadTheTailOutside(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir, outside := filepath.Join(parent, "watched"), filepath.Join(parent, "outside")
	secret := filepath.Join(outside, "secret.log")
	writeFile(t, secret, "ERROR outside secret one\n", 0o600)
	writeFile(t, filepath.Join(dir, "app.log"), "start\n", 0o644)
	if err := os.Symlink(secret, filepath.Join(dir, "secret-link")); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewOllama(t, modeltest.Sequence(
		modeltest.Calls(
			call("file_delete", map[string]any{"path": "app.log"}),
			call("file_copy", map[string]any{"from": "secret-link", "to": "app.log"}),
		),
		modeltest.Text("done"),
	))
	e := start(t, envOptions{})
	e.add(watchers.Definition{Name: "tailer", Path: dir, Provider: ollama(srv),
		Tail: &watchers.Tail{File: "app.log", FailPattern: "ERROR"}})
	appendFile(t, filepath.Join(dir, "app.log"), "ERROR inside\n")
	runs := e.waitRuns("tailer", 1)
	if tools := toolRecords(runs[0]); len(tools) != 2 || tools[1].Error {
		t.Fatalf("the model's link did not land:%s", describe(runs))
	}
	// Verdicts that come while the watcher is busy are dropped, and one
	// held by the cooldown can be lost to a debounce of other changes:
	// wait until the watcher is idle and out of its cooldown.
	idle := func() bool {
		st := e.state("tailer")
		return st.Phase == watchers.PhaseIdle && time.Since(st.LastRunEnd) > 6*time.Second
	}
	e.waitFor("the watcher to be idle", idle)
	appendFile(t, secret, "ERROR outside secret two\n")
	e.waitFor("the watcher to be idle", idle)
	// A real log again: its failure line starts the next run.
	os.Remove(filepath.Join(dir, "app.log"))
	writeFile(t, filepath.Join(dir, "app.log"), "ERROR back inside\n", 0o644)
	e.waitRuns("tailer", 2)
	seen := false
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "outside secret") {
				t.Fatalf("a prompt holds a line of the file outside the folder:\n%s", m.Content)
			}
			seen = seen || strings.Contains(m.Content, "ERROR back inside")
		}
	}
	if !seen {
		t.Error("the failure line of the new log never reached the model")
	}
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
