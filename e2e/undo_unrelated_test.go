package e2e

import (
	"path/filepath"
	"testing"

	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/watchers"
)

// An undo takes only its own paths into the baseline: a person's change
// that was still waiting (here behind the cooldown) when the undo ran is
// not swallowed, and reaches the model in a run listing only it.
func TestUndoKeepsAnUnrelatedPendingChange(t *testing.T) {
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
	e.waitRuns("busy", 1)
	// Within the 5 s cooldown: the change waits, then undo runs.
	writeFile(t, filepath.Join(dir, "person.txt"), "written by a person", 0o644)
	if _, err := e.c.Undo(e.ctx, "busy", ""); err != nil {
		t.Fatalf("undo: %v", err)
	}
	want := snapshot(t, dir, "person.txt")
	assertSame(t, "the folder after undo (but for the person's file)", before, want)
	runs := e.waitRuns("busy", 2)
	if got := runs[0].Start.Changed; len(got) != 1 || got[0].Path != "person.txt" {
		t.Fatalf("the run after the undo lists %+v, want only person.txt", got)
	}
}
