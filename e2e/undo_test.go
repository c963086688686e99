package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/watchers"
)

// seed fills a folder with a few files of different modes.
func seed(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "a.txt"), "alpha\n", 0o644)
	writeFile(t, filepath.Join(dir, "b.md"), "# Title\nbody text\n", 0o600)
	writeFile(t, filepath.Join(dir, "notes", "n.md"), "a note\n", 0o640)
	writeFile(t, filepath.Join(dir, "old.log"), "obsolete\n", 0o644)
	writeFile(t, filepath.Join(dir, "run.sh"), "#!/bin/sh\necho hi\n", 0o755)
}

// busyRound is one tool round that uses every mutating tool.
func busyRound() []modeltest.ToolCall {
	return []modeltest.ToolCall{
		call("file_write", map[string]any{"path": "new/created.txt", "content": "made by the model"}),
		call("file_edit", map[string]any{"path": "b.md", "old": "body text", "new": "edited body"}),
		call("file_write", map[string]any{"path": "run.sh", "content": "#!/bin/sh\necho replaced\n", "overwrite": true}),
		call("file_move", map[string]any{"from": "a.txt", "to": "Archive/2026/a.txt"}),
		call("file_copy", map[string]any{"from": "notes", "to": "notes-copy"}),
		call("file_delete", map[string]any{"path": "old.log"}),
		call("dir_create", map[string]any{"path": "Empty/Deeper"}),
		call("file_move", map[string]any{"from": "notes/n.md", "to": "n-moved.md"}),
	}
}

// Undo restores the folder byte for byte, and its own changes do not wake
// the watcher.
func TestUndoRestoresFolderExactly(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOllama(t, rounds(busyRound()))
	e := start(t, envOptions{})
	dir := t.TempDir()
	seed(t, dir)
	e.add(watchers.Definition{Name: "busy", Path: dir, Provider: ollama(srv)})
	before := snapshot(t, dir)

	if _, err := e.c.Run(e.ctx, "busy", false); err != nil {
		t.Fatal(err)
	}
	runs := e.waitRuns("busy", 1)
	for _, rec := range toolRecords(runs[0]) {
		if rec.Error {
			t.Fatalf("tool call failed: %s %s: %s", rec.Name, rec.Args, rec.Result)
		}
	}
	if len(diffSnapshots(before, snapshot(t, dir))) == 0 {
		t.Fatal("the run changed nothing")
	}

	resp, err := e.c.Undo(e.ctx, "busy", "")
	if err != nil {
		t.Fatalf("undo: %v", err)
	}
	if resp.RunID != runs[0].ID || len(resp.Restored) == 0 {
		t.Fatalf("undo reversed run %s with %d change(s); want run %s", resp.RunID, len(resp.Restored), runs[0].ID)
	}
	assertSame(t, "the folder after undo", before, snapshot(t, dir))
	e.quiet("busy", 1)
	if n := len(e.ended("busy")); n != 1 {
		t.Fatalf("%d runs in the history after undo, want 1", n)
	}
	// A second undo has nothing left to reverse.
	if _, err := e.c.Undo(e.ctx, "busy", ""); err == nil || !strings.Contains(err.Error(), "nothing to undo") {
		t.Fatalf("second undo: %v", err)
	}
	assertSame(t, "the folder after a second undo", before, snapshot(t, dir))
}

// Undo refuses, with a report naming what changed, when a file the run
// touched changed afterwards; and it changes nothing.
func TestUndoRefusesAfterLaterChange(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOllama(t, rounds(busyRound()))
	e := start(t, envOptions{})
	dir := t.TempDir()
	seed(t, dir)
	e.add(watchers.Definition{Name: "busy", Path: dir, Provider: ollama(srv)})
	if _, err := e.c.Run(e.ctx, "busy", false); err != nil {
		t.Fatal(err)
	}
	e.waitRuns("busy", 1)
	// Someone edits a file the run wrote.
	writeFile(t, filepath.Join(dir, "new", "created.txt"), "edited by a person afterwards", 0o644)
	after := snapshot(t, dir)

	_, err := e.c.Undo(e.ctx, "busy", "")
	if err == nil {
		t.Fatal("undo went ahead over a later change")
	}
	if !strings.Contains(err.Error(), "new/created.txt") {
		t.Fatalf("the refusal does not name the changed file: %v", err)
	}
	assertSame(t, "the folder after a refused undo", after, snapshot(t, dir))
	// The person's change is not swallowed by the refused undo: it reaches
	// the model in a run of its own (after the 5 s cooldown).
	runs := e.waitRuns("busy", 2)
	if got := runs[0].Start.Changed; len(got) != 1 || got[0].Path != "new/created.txt" {
		t.Fatalf("the run after the refusal lists %+v, want only new/created.txt", got)
	}
	// The ledger is kept, so a later undo can still be tried.
	if _, err := os.Stat(filepath.Join(e.home.Runs(), e.state("busy").ID, runs[1].ID, "ledger.json")); err != nil {
		t.Fatalf("the ledger is gone after a refused undo: %v", err)
	}
}

// A dry run lets the model plan: nothing changes on disk, and the planned
// tool calls are in the history. Once for a dryRun watcher, once for a
// manual dry run of a normal one.
func TestDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		watcherDR bool
		manualDR  bool
	}{
		{"watcher-dry-run", true, false},
		{"run-dry-run", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.NewOllama(t, rounds(busyRound()))
			e := start(t, envOptions{})
			dir := t.TempDir()
			seed(t, dir)
			e.add(watchers.Definition{Name: "plan", Path: dir, Provider: ollama(srv), DryRun: tc.watcherDR})
			before := snapshot(t, dir)
			if _, err := e.c.Run(e.ctx, "plan", tc.manualDR); err != nil {
				t.Fatal(err)
			}
			runs := e.waitRuns("plan", 1)
			assertSame(t, "the folder after a dry run", before, snapshot(t, dir))
			r := runs[0]
			if !r.Start.DryRun {
				t.Fatal("the run is not recorded as a dry run")
			}
			tools := toolRecords(r)
			if len(tools) != len(busyRound()) {
				t.Fatalf("%d planned tool calls in the history, want %d:%s", len(tools), len(busyRound()), describe(runs))
			}
			for i, want := range busyRound() {
				if tools[i].Name != want.Name || tools[i].Error {
					t.Fatalf("planned call %d: %s (error %v: %s), want %s", i, tools[i].Name, tools[i].Error, tools[i].Result, want.Name)
				}
			}
			if _, err := os.Stat(filepath.Join(e.trash, "files")); !os.IsNotExist(err) {
				t.Fatalf("a dry run put something in the trash (%v)", err)
			}
			if _, err := e.c.Undo(e.ctx, "plan", ""); err == nil {
				t.Fatal("undo of a dry run should find nothing to undo")
			}
			assertSame(t, "the folder after undo of a dry run", before, snapshot(t, dir))
			e.quiet("plan", 1)
		})
	}
}
