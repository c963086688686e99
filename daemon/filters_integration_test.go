package daemon_test

import (
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/fingerprint"
	"github.com/tend-agent/tend/internal/testutil"
	"github.com/tend-agent/tend/watchers"
)

// Editing a paused watcher's ignore list keeps the changes it holds: on
// resume they run, without what the new list ignores.
func TestDaemonEditIgnoreKeepsHeldChanges(t *testing.T) {
	t.Parallel()
	h := startDaemon(t)
	dir := t.TempDir()
	testutil.Write(t, dir, "a.txt", "a")
	testutil.Write(t, dir, "x.log", "x")
	h.add("w", dir, nil)
	h.waitPhase("w", watchers.PhaseIdle)
	if err := h.c.Pause(h.ctx, "w"); err != nil {
		t.Fatal(err)
	}
	h.waitPhase("w", watchers.PhasePaused)

	testutil.Write(t, dir, "a.txt", "version two")
	testutil.Write(t, dir, "x.log", "version two")
	testutil.Write(t, dir, "new.log", "n")
	if _, err := h.c.Edit(h.ctx, "w", map[string]any{"ignore": []string{"*.log"}}); err != nil {
		t.Fatal(err)
	}
	h.waitState("w", "paused with the new ignore list", func(s watchers.State) bool { return s.Phase == watchers.PhasePaused })
	if err := h.c.Resume(h.ctx, "w", api.ResumeRequest{}); err != nil {
		t.Fatal(err)
	}
	p := h.waitRun("w", 1)
	if want := (fingerprint.Changes{Modified: []string{"a.txt"}}); !testutil.Equal(p.Changes, want) {
		t.Fatalf("after the edit and resume the run lists %+v, want %+v", testutil.Norm(p.Changes), want)
	}
}
