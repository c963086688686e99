package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/fingerprint"
	"github.com/tend-agent/tend/internal/clock"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/runner"
	"github.com/tend-agent/tend/sandbox"
	"github.com/tend-agent/tend/watchers"
)

type fixture struct {
	r   *runner.Runner
	h   home.Home
	def *watchers.Definition
}

func newFixture(t *testing.T, script modeltest.Script) fixture {
	t.Helper()
	srv := modeltest.NewOllama(t, script)
	h := home.Home{Dir: t.TempDir()}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	r := runner.New(runner.Config{Home: h, Trash: sandbox.FreedesktopTrash{Dir: filepath.Join(t.TempDir(), "Trash")},
		Clock: clock.NewFake(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))})
	def := &watchers.Definition{ID: "00000000-0000-4000-8000-00000000000a", Name: "w", Path: t.TempDir(),
		Instructions: "tidy up", Provider: watchers.Provider{Kind: "ollama", Model: "qwen3:8b", BaseURL: srv.URL}}
	return fixture{r, h, def}
}

// run does one pass and finishes the run.
func (f fixture) run(t *testing.T, id string) watchers.PassResult {
	t.Helper()
	res := f.r.Pass(context.Background(), watchers.PassRequest{Def: f.def, RunID: id, Trigger: "manual", Pass: 1,
		Changes: fingerprint.Changes{Added: []string{"x.txt"}}})
	f.r.Finish(context.Background(), watchers.RunSummary{Def: f.def, RunID: id, Outcome: res.Outcome, Passes: 1})
	return res
}

func TestPassThatChangesNothingWritesNoLedger(t *testing.T) {
	f := newFixture(t, modeltest.Sequence(modeltest.Text("Everything is in order.")))
	if res := f.run(t, "20260302T090000Z-0000000a"); res.Outcome != dispatch.OutcomeDone {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	if _, err := os.Stat(filepath.Join(f.h.Runs(), f.def.ID, "20260302T090000Z-0000000a", "ledger.json")); !os.IsNotExist(err) {
		t.Fatalf("a pass that changed nothing wrote a ledger (%v)", err)
	}
	for _, id := range []string{"", "20260302T090000Z-0000000a"} {
		_, err := f.r.Undo(context.Background(), f.def, id)
		if err == nil || !strings.Contains(err.Error(), "nothing to undo") {
			t.Fatalf("undo %q of a run that changed nothing: %v", id, err)
		}
	}
}

func TestUndoRefusalNamesWhatChanged(t *testing.T) {
	f := newFixture(t, modeltest.Sequence(
		modeltest.Calls(modeltest.Call("file_write", `{"path":"made.txt","content":"by the model"}`)),
		modeltest.Text("Done.")))
	f.run(t, "20260302T090000Z-0000000a")
	p := filepath.Join(f.def.Path, "made.txt")
	if err := os.WriteFile(p, []byte("changed by a person"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := f.r.Undo(context.Background(), f.def, "")
	if err == nil || !strings.Contains(err.Error(), "made.txt") || len(resp.Conflicts) == 0 {
		t.Fatalf("undo over a later change: %v (conflicts %v)", err, resp.Conflicts)
	}
	if b, _ := os.ReadFile(p); string(b) != "changed by a person" {
		t.Fatalf("a refused undo changed the file: %q", b)
	}
}
