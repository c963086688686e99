package daemon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/fingerprint"
	"github.com/tend-agent/tend/internal/testutil"
	"github.com/tend-agent/tend/watchers"
)

// A watcher inside another one owns its subtree: only it wakes for a
// change there, with path boundaries that keep Projects2 the parent's.
// Pausing the inner watcher hands its subtree back to the parent.
func TestDaemonNestedExclusion(t *testing.T) {
	t.Parallel()
	h := startDaemon(t)
	a := t.TempDir()
	testutil.Write(t, a, "Projects/x.txt", "x")
	testutil.Write(t, a, "Projects2/y.txt", "y")
	h.add("parent", a, nil)
	h.add("child", filepath.Join(a, "Projects"), nil)
	h.waitPhase("child", watchers.PhaseIdle)
	// The parent restarts without Projects: one file, one folder.
	h.waitState("parent", "idle without Projects", func(s watchers.State) bool {
		return s.Phase == watchers.PhaseIdle && s.Files == 1 && s.Dirs == 1
	})
	wakesBefore := h.wakes("parent")

	testutil.Write(t, a, "Projects/x.txt", "x changed")
	testutil.Write(t, a, "Projects/z.txt", "z")
	p := h.waitRun("child", 1)
	if want := (fingerprint.Changes{Added: []string{"z.txt"}, Modified: []string{"x.txt"}}); !testutil.Equal(p.Changes, want) {
		t.Errorf("child dispatched %+v, want %+v", p.Changes, want)
	}
	if n := h.wakes("parent"); n != wakesBefore {
		t.Errorf("a change inside the child's folder woke the parent")
	}

	testutil.Write(t, a, "Projects2/new.txt", "n")
	p = h.waitRun("parent", 1)
	if want := (fingerprint.Changes{Added: []string{"Projects2/new.txt"}}); !testutil.Equal(p.Changes, want) {
		t.Errorf("parent dispatched %+v, want %+v", p.Changes, want)
	}
	if n := h.wakes("parent") - wakesBefore; n != 1 {
		t.Errorf("parent woke %d times, want once (for Projects2)", n)
	}

	// Pausing the child gives Projects back to the parent.
	if err := h.c.Pause(h.ctx, "child"); err != nil {
		t.Fatal(err)
	}
	h.waitState("parent", "idle with Projects", func(s watchers.State) bool {
		return s.Phase == watchers.PhaseIdle && s.Files == 4 && s.Dirs == 2
	})
	testutil.Write(t, a, "Projects/late.txt", "l")
	p = h.waitRun("parent", 2)
	if want := (fingerprint.Changes{Added: []string{"Projects/late.txt"}}); !testutil.Equal(p.Changes, want) {
		t.Errorf("parent dispatched %+v after the child was paused, want %+v", p.Changes, want)
	}
	if n := len(h.run.Passes("child")); n != 1 {
		t.Errorf("the paused child ran: %s", h.run.Describe())
	}
}

func writeDef(t *testing.T, path string, m map[string]any) {
	t.Helper()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Definition files edited by hand are applied live: created, changed,
// broken (skipped, named, never rewritten) and removed.
func TestDaemonStoreEditsLive(t *testing.T) {
	t.Parallel()
	h := startDaemon(t)
	other := t.TempDir()
	h.add("other", other, nil)
	h.waitPhase("other", watchers.PhaseIdle)

	folder := t.TempDir()
	id := "5d0c2d4e-8f0b-4a55-b6b1-0c7d2f1e9a11"
	file := filepath.Join(h.home.Watchers(), id+".json")
	def := map[string]any{
		"id": id, "name": "by-hand", "instructions": "sort it", "enabled": true,
		"path": folder, "recursive": true, "responsiveness": "patient",
	}
	writeDef(t, file, def)
	h.waitPhase("by-hand", watchers.PhaseIdle)

	def["responsiveness"] = "fast"
	writeDef(t, file, def)
	testutil.WaitFor(t, "the edited responsiveness", func() bool {
		v, ok := h.view("by-hand")
		return ok && v.Definition.Responsiveness == "fast" && v.State.Phase == watchers.PhaseIdle
	})
	// The edited watcher still works.
	testutil.Write(t, folder, "a.txt", "a")
	if p := h.waitRun("by-hand", 1); !testutil.Equal(p.Changes, fingerprint.Changes{Added: []string{"a.txt"}}) {
		t.Errorf("by-hand dispatched %+v", p.Changes)
	}

	// A broken file is skipped, named, and left byte for byte.
	bad := filepath.Join(h.home.Watchers(), "0badf11e-0000-4000-8000-000000000000.json")
	broken := []byte("{ \"name\": \"oops\", this is not JSON\n")
	if err := os.WriteFile(bad, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, "a problem naming the broken file", func() bool {
		for _, p := range h.status().Problems {
			if strings.Contains(p, bad) && strings.Contains(p, "invalid JSON") {
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprint(h.status().Problems) })
	testutil.Write(t, other, "still.txt", "s")
	if p := h.waitRun("other", 1); !testutil.Equal(p.Changes, fingerprint.Changes{Added: []string{"still.txt"}}) {
		t.Errorf("other dispatched %+v", p.Changes)
	}
	// Breaking a running watcher's own file puts it in error, names the
	// file, and leaves the file alone.
	own := []byte(`{"id": "` + id + `", "name": "by-hand", "instructions": "sort it", "path": "` + folder + `", "responsiveness": "sloth"}`)
	if err := os.WriteFile(file, own, 0o600); err != nil {
		t.Fatal(err)
	}
	// (A hand edit in place may be read half-written first; wait for the
	// final content's verdict.)
	st := h.waitState(id, "in error over the unknown tier", func(s watchers.State) bool {
		return s.Phase == watchers.PhaseError && strings.Contains(s.Reason, "sloth")
	})
	if !strings.Contains(st.Reason, file) {
		t.Errorf("error reason %q does not name the file and the problem", st.Reason)
	}
	for p, want := range map[string][]byte{bad: broken, file: own} {
		if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s was changed by tend (%v): %q", p, err, got)
		}
	}

	// Removing the file stops the engine.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, "by-hand to go away", func() bool {
		vs, _ := h.c.List(h.ctx)
		n := names(vs)
		return len(n) == 1 && n[0] == "other"
	})
	if got := h.status().Problems; len(got) != 1 {
		t.Errorf("problems after removing the file: %v", got)
	}
}

// A second daemon on the same home refuses to start, and says why.
func TestDaemonSecondInstanceRefused(t *testing.T) {
	t.Parallel()
	h := startDaemon(t)
	d2 := daemon.New(daemon.Config{Home: h.home, Runner: &testutil.Runner{}, Log: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := d2.Run(ctx, func() { t.Error("the second daemon became ready") })
	if err == nil || !strings.Contains(err.Error(), "already running") || !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Fatalf("second daemon: %v; want an 'already running' error with the first one's pid", err)
	}
	if _, err := h.c.Status(h.ctx); err != nil {
		t.Fatalf("the first daemon stopped answering: %v", err)
	}
}

// Bad input to add is refused with a clear message and writes nothing.
func TestDaemonAddBadInput(t *testing.T) {
	t.Parallel()
	h := startDaemon(t)
	dir := t.TempDir()
	h.add("taken", dir, nil)
	file := filepath.Join(dir, "plain.txt")
	testutil.Write(t, dir, "plain.txt", "p")
	cases := []struct {
		name string
		edit func(*watchers.Definition)
		want string
	}{
		{"missing path", func(d *watchers.Definition) { d.Path = filepath.Join(dir, "nope") }, "does not exist"},
		{"a file, not a folder", func(d *watchers.Definition) { d.Path = file }, "is not a folder"},
		{"duplicate name", func(d *watchers.Definition) { d.Name = "taken" }, "already exists"},
		{"invalid name", func(d *watchers.Definition) { d.Name = "Bad Name!" }, "invalid name"},
		{"unknown tier", func(d *watchers.Definition) { d.Responsiveness = "sloth" }, "unknown responsiveness"},
		{"no instructions", func(d *watchers.Definition) { d.Instructions = " " }, "no instructions"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			def := watchers.Definition{Name: "fresh", Instructions: "x", Enabled: true, Path: dir, Recursive: true}
			tc.edit(&def)
			_, err := h.c.Add(h.ctx, api.AddRequest{Definition: def})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("add: %v; want an error saying %q", err, tc.want)
			}
		})
	}
	ents, _ := os.ReadDir(h.home.Watchers())
	if len(ents) != 1 {
		t.Errorf("refused adds left files in the store: %d entries", len(ents))
	}
}

// A watched folder that vanishes puts its watcher in error with the
// reason; when it is back the watcher recovers.
func TestDaemonFolderGoneAndBack(t *testing.T) {
	t.Parallel()
	h := startDaemon(t)
	dir := filepath.Join(t.TempDir(), "inbox")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h.add("inbox", dir, nil)
	h.waitPhase("inbox", watchers.PhaseIdle)
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	st := h.waitPhase("inbox", watchers.PhaseError)
	if !strings.Contains(st.Reason, dir) {
		t.Errorf("error reason %q does not name the folder", st.Reason)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h.waitPhase("inbox", watchers.PhaseIdle)
	testutil.Write(t, dir, "back.txt", "b")
	if p := h.waitRun("inbox", 1); !testutil.Equal(p.Changes, fingerprint.Changes{Added: []string{"back.txt"}}) {
		t.Errorf("after recovery dispatched %+v", p.Changes)
	}
}
