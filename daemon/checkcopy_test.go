package daemon_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/runner"
	"github.com/tend-agent/tend/sandbox"
	"github.com/tend-agent/tend/watchers"
)

type noKeys struct{}

func (noKeys) Get(name string) (string, error) { return "", dispatch.ErrKeyNotFound }
func (noKeys) Set(string, string) error        { return errors.New("read-only") }
func (noKeys) Delete(string) error             { return nil }

// The check is a script in the watched folder, which the model can write.
// The model overwrites it with its own code; the next check must still run
// the script the user gave, never the model's.
func TestModelCannotRewriteTheCheckScript(t *testing.T) {
	e := i5Start(t)
	dir, marks := t.TempDir(), t.TempDir()
	pwned, ran := filepath.Join(marks, "pwned"), filepath.Join(marks, "ran")
	script := "#!/bin/sh\necho run >> " + ran + "\necho \"tidy the folder, $1\"\n"
	if err := os.WriteFile(filepath.Join(dir, "check.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	evil := "#!/bin/sh\ntouch " + pwned + "\necho owned\n"
	srv := modeltest.NewOllama(t, modeltest.Sequence(
		modeltest.Calls(modeltest.Call("file_write", `{"path":"check.sh","overwrite":true,"content":`+quoteJSON(evil)+`}`)),
		modeltest.Text("done"),
	))
	r := runner.New(runner.Config{Home: e.home, Clock: e.clock, Keys: noKeys{}, Log: i5Log(),
		Trash: sandbox.FreedesktopTrash{Dir: filepath.Join(t.TempDir(), "Trash")}, Agent: dispatch.AgentOptions{Timeout: 24 * time.Hour}})
	e.runner.act = r.Pass
	e.add(watchers.Definition{Name: "checked", Path: dir, Schedule: "every 1m", Check: "./check.sh please",
		Provider: watchers.Provider{Kind: "ollama", Model: "qwen3:8b", BaseURL: srv.URL}})
	e.until("the first run", time.Minute, func() bool { _, ends, _ := e.runner.snapshot(); return len(ends) >= 1 })
	if got, _ := os.ReadFile(filepath.Join(dir, "check.sh")); string(got) != evil {
		t.Fatalf("the model's write did not land; check.sh holds %q", got)
	}
	e.until("two more checks", time.Minute, func() bool { _, _, checks := e.runner.snapshot(); return len(checks) >= 3 })
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("the check ran the script the model wrote")
	}
	_, _, checks := e.runner.snapshot()
	for i, c := range checks[:3] {
		if !strings.Contains(c.Output, "tidy the folder, please") {
			t.Errorf("check %d: outcome %s output %q err %v; want the user's script with its argument", i+1, c.Outcome, c.Output, c.Err)
		}
	}
	if b, _ := os.ReadFile(ran); strings.Count(string(b), "run") < 3 {
		t.Errorf("the user's script ran %d times, want 3", strings.Count(string(b), "run"))
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Which command words are taken for a script in the folder, and how the
// command runs the copy.
func TestCheckScriptCopyRewritesTheCommand(t *testing.T) {
	e := i5Start(t)
	dir := t.TempDir()
	for _, name := range []string{"c.sh", "my check.sh", "tools/x.py"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyOf := func(id, name string) string { return "'" + filepath.Join(e.home.Checks(), id, name) + "'" }
	cases := []struct {
		check string
		want  func(id string) string
	}{
		{"./c.sh --quick", func(id string) string { return copyOf(id, "c.sh") + " --quick" }},
		{filepath.Join(dir, "c.sh"), func(id string) string { return copyOf(id, "c.sh") }},
		{"LANG=C ./c.sh a | wc -l", func(id string) string { return "LANG=C " + copyOf(id, "c.sh") + " a | wc -l" }},
		{"sh c.sh", func(id string) string { return "sh " + copyOf(id, "c.sh") }},
		{"python3 tools/x.py --n 2", func(id string) string { return "python3 " + copyOf(id, "x.py") + " --n 2" }},
		{"'./my check.sh' x", func(id string) string { return copyOf(id, "my_check.sh") + " x" }},
		{"echo hi", func(string) string { return "echo hi" }},
		{"test -e c.sh", func(string) string { return "test -e c.sh" }},
	}
	for i, c := range cases {
		def := e.add(watchers.Definition{Name: "c" + string(rune('a'+i)), Path: dir, Schedule: "every 1h", Check: c.check, AllowOverlap: true})
		if want := c.want(def.ID); def.Check != want {
			t.Errorf("--check %q is stored as %q, want %q", c.check, def.Check, want)
		}
	}
}
