package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"github.com/tend-agent/tend/daemon/daemontest"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/watchers"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// cliRunner is a daemon.Runner that records one message per pass in the
// real history format, so `tend history` has something to print.
type cliRunner struct{ h home.Home }

func (r cliRunner) Pass(ctx context.Context, req watchers.PassRequest) watchers.PassResult {
	hist := dispatch.OpenHistory(r.h.Sessions(), req.Def.ID)
	hist.Append(dispatch.Record{Type: dispatch.RecRunStart, RunID: req.RunID, WatcherID: req.Def.ID, Source: dispatch.SourceWatcher,
		Trigger: req.Trigger, Changed: dispatch.ChangedFromDiff(req.Changes.Added, req.Changes.Removed, req.Changes.Modified), Provider: "ollama", Model: "m"})
	hist.Append(dispatch.Record{Type: dispatch.RecMessage, RunID: req.RunID, Role: "assistant", Content: "Everything is in order."})
	return watchers.PassResult{Outcome: "done"}
}

func (r cliRunner) Finish(ctx context.Context, sum watchers.RunSummary) {
	dispatch.OpenHistory(r.h.Sessions(), sum.Def.ID).Append(dispatch.Record{Type: dispatch.RecRunEnd, RunID: sum.RunID, Outcome: sum.Outcome, Passes: sum.Passes})
}

func (cliRunner) Undo(ctx context.Context, def *watchers.Definition, runID string) (api.UndoResponse, error) {
	return api.UndoResponse{}, nil
}

func (cliRunner) History(def *watchers.Definition) (json.RawMessage, error) { return []byte("[]"), nil }

func startCLIDaemon(t *testing.T) (*globalOptions, home.Home) {
	t.Helper()
	h := home.Home{Dir: t.TempDir()}
	daemontest.Start(t, daemon.Config{Home: h, Runner: cliRunner{h}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "test"})
	return &globalOptions{home: h.Dir}, h
}

// run executes a tend command line against the test daemon and returns
// what it printed and its error.
func run(t *testing.T, g *globalOptions, args ...string) (string, error) {
	t.Helper()
	root := newRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"--home", g.home}, args...))
	stdout := os.Stdout
	r, w, _ := os.Pipe()
	os.Stdout = w
	err := root.Execute()
	w.Close()
	os.Stdout = stdout
	captured, _ := io.ReadAll(r)
	return out.String() + string(captured), err
}

var (
	reUUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	reRun  = regexp.MustCompile(`\d{8}T\d{6}Z-[0-9a-f]{8}`)
	reTime = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	reHash = regexp.MustCompile(`\b[0-9a-f]{16}\b`)
	rePID  = regexp.MustCompile(`pid \d+`)
	reDate = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`)
)

func normalize(s string, dirs map[string]string) string {
	for dir, name := range dirs {
		s = strings.ReplaceAll(s, dir, name)
	}
	s = reUUID.ReplaceAllString(s, "ID")
	s = reRun.ReplaceAllString(s, "RUN")
	s = reTime.ReplaceAllString(s, "TIME")
	s = reDate.ReplaceAllString(s, "TIME")
	s = reHash.ReplaceAllString(s, "HASH")
	s = rePID.ReplaceAllString(s, "pid PID")
	return s
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/tend -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from %s:\n--- got ---\n%s\n--- want ---\n%s", name, p, got, want)
	}
}

func TestCLIGolden(t *testing.T) {
	g, h := startCLIDaemon(t)
	dir := t.TempDir()
	dirs := map[string]string{dir: "/FOLDER", h.Dir: "/HOME"}
	os.WriteFile(filepath.Join(dir, "old.txt"), []byte("x"), 0o644)
	steps := []struct {
		name string
		args []string
	}{
		{"add", []string{"add", dir, "--name", "inbox", "--instructions", "File PDFs under Invoices/YYYY", "--responsiveness", "fast", "--ignore", "*.tmp", "--schedule", "daily 09:00 mon,thu"}},
		{"add-template", []string{"add", "--template", "--name", "notes", "--instructions", "Keep notes linked"}},
		{"edit", []string{"edit", "inbox", "--max-fires", "20"}},
	}
	for _, s := range steps {
		out, err := run(t, g, s.args...)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		golden(t, "cli-"+s.name, normalize(out, dirs))
	}
	waitCLI(t, g, func(v api.View) bool { return v.State.Phase == watchers.PhaseIdle })
	if _, err := run(t, g, "run", "inbox"); err != nil {
		t.Fatal(err)
	}
	waitCLI(t, g, func(v api.View) bool { return v.State.LastOutcome == "done" && v.State.Phase == watchers.PhaseIdle })
	for _, s := range []struct {
		name string
		args []string
	}{
		{"list", []string{"list"}},
		{"show", []string{"show", "inbox"}},
		{"history", []string{"history", "inbox"}},
	} {
		out, err := run(t, g, s.args...)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		golden(t, "cli-"+s.name, normalize(out, dirs))
	}
}

func waitCLI(t *testing.T, g *globalOptions, cond func(api.View) bool) {
	t.Helper()
	c, _ := g.client()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := c.Get(context.Background(), "inbox")
		if err == nil && cond(v) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out; last state %+v (%v)", v.State, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestCLIBadInput(t *testing.T) {
	g, _ := startCLIDaemon(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	os.WriteFile(file, nil, 0o644)
	other := t.TempDir()
	if _, err := run(t, g, "add", dir, "--name", "taken", "--instructions", "x"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"add", filepath.Join(dir, "nope"), "--name", "a", "--instructions", "x"}, "does not exist"},
		{[]string{"add", file, "--name", "a", "--instructions", "x"}, "is not a folder"},
		{[]string{"add", dir, "--name", "taken", "--instructions", "x"}, "already exists"},
		{[]string{"add", dir, "--name", "Bad Name", "--instructions", "x"}, "invalid name"},
		{[]string{"add", dir, "--name", "a", "--instructions", "x", "--responsiveness", "eager"}, "unknown responsiveness \"eager\": choose one of fast"},
		{[]string{"add", dir, "--name", "a", "--instructions", "x", "--schedule", "every 2s"}, "schedule"},
		{[]string{"add", dir, "--name", "a", "--instructions", "x", "--tail", "../outside.log", "--fail-pattern", "x"}, "tail"},
		{[]string{"add", dir, "--name", "a", "--instructions", "x", "--tail", "b.log", "--fail-pattern", "("}, "tail"},
		{[]string{"add", dir, "--name", "a", "--instructions", "x", "--include", "[a-"}, "glob"},
		{[]string{"add", dir, "--name", "a", "--instructions", "x", "--check", "no-such-command-xyz --flag"}, "no-such-command-xyz"},
		{[]string{"add", dir, "--name", "a", "--instructions", "x", "--skill", "missing"}, "missing"},
		{[]string{"add", dir, "--name", "a", "--instructions", "x", "--cooldown", "2"}, "below the minimum of 5"},
		{[]string{"show", "ghost"}, "no such watcher \"ghost\""},
		{[]string{"edit", "taken"}, "nothing to change"},
		{[]string{"add", other, "--name", "a", "--instructions", "x", "--ok-pattern", "PASS"}, "--ok-pattern reads a log file, and none is followed: add --tail FILE"},
		{[]string{"add", other, "--name", "a", "--instructions", "x", "--fail-pattern", "FAIL"}, "add --tail FILE"},
		{[]string{"add", other, "--name", "a", "--instructions", "x", "--silence", "10m"}, "add --tail FILE"},
		{[]string{"add", other, "--name", "a", "--instructions", "x", "--tail", "b.log", "--silence", "0s"}, "shorter than a second"},
		{[]string{"edit", "taken", "--ok-pattern", "PASS"}, "add --tail FILE"},
		{[]string{"add", other, "--name", "a", "--instructions", "x", "--check", "true"}, "add --schedule"},
		{[]string{"add", other, "--name", "a", "--instructions", "x", "--burst-threshold", "0"}, "--burst-threshold 0 is below the minimum of 1"},
		{[]string{"add", other, "--name", "a", "--instructions", "x", "--max-iterations", "0"}, "--max-iterations 0 is below the minimum of 1"},
		{[]string{"add", other, "--name", "a", "--instructions", "x", "--burst-window", "0"}, "--burst-window 0 is below the minimum of 1"},
		{[]string{"add", other, "--name", "a", "--instructions", "x", "--check-timeout", "0"}, "--check-timeout 0 is below the minimum of 1"},
		{[]string{"add", other, "--name", "a", "--instructions", "x", "--cooldown", "0"}, "below the minimum of 5"},
		{[]string{"add", other, "--name", "a", "--instructions", "x", "--settle", "-1"}, "--settle -1 is below the minimum of 0"},
		{[]string{"edit", "taken", "--max-fires", "-1"}, "--max-fires -1 is below the minimum of 0"},
		{[]string{"add", other, "--name", "a", "--instructions", "x", "--base-url", "not a url"}, "is not a URL"},
		{[]string{"add", other, "--name", "a", "--instructions", "x", "--provider", "openai", "--base-url", "api.example.com/v1"}, "is not a URL"},
		{[]string{"edit", "taken", "--enable", "--disable"}, "contradict"},
		{[]string{"add", dir, "--name", "a", "--instructions", "x"}, "already watched by taken"},
		{[]string{"add", other, "--name", "a", "--instructions", strings.Repeat("x", 64<<10+1)}, "over the limit of 64 KiB"},
		{[]string{"edit", "taken", "--instructions", strings.Repeat("x", 64<<10+1)}, "over the limit of 64 KiB"},
	}
	for _, c := range cases {
		_, err := run(t, g, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("tend %.200s: got %.300v, want an error containing %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	if vs, _ := run(t, g, "list"); strings.Contains(vs, " a ") {
		t.Errorf("a refused add left a watcher: %s", vs)
	}
	// The same folder is fine with --allow-overlap, and the consent is stored.
	if _, err := run(t, g, "add", dir, "--name", "second", "--instructions", "x", "--allow-overlap"); err != nil {
		t.Fatalf("add --allow-overlap: %v", err)
	}
	if d := getDef(t, g, "second"); !d.AllowOverlap {
		t.Errorf("allowOverlap not stored: %+v", d)
	}
}

func TestStatusWithoutDaemonExitsNonZero(t *testing.T) {
	g := &globalOptions{home: t.TempDir()}
	_, err := run(t, g, "status")
	var ee *exitError
	if err == nil || !strings.Contains(err.Error(), "no tend daemon is running") {
		t.Fatalf("got %v", err)
	}
	if !asExit(err, &ee) || ee.code != 1 {
		t.Fatalf("want exit code 1, got %v", err)
	}
}

func asExit(err error, ee **exitError) bool {
	e, ok := err.(*exitError)
	*ee = e
	return ok
}
