package daemon_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/internal/unpriv"
	"github.com/tend-agent/tend/watchers"
)

// A subfolder the user cannot read is skipped and reported; the rest of
// the folder is still watched.
func TestUnreadableSubfolderIsReportedAndTheRestWatched(t *testing.T) {
	if unpriv.Rerun(t) {
		return // ran as an unprivileged user
	}
	e := i5Start(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "locked", "secret.txt"), "s")
	writeFile(t, filepath.Join(dir, "open", "a.txt"), "a")
	if err := os.Chmod(filepath.Join(dir, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "locked"), 0o755) })
	e.add(watchers.Definition{Name: "docs", Path: dir})
	e.until("watching", time.Millisecond, func() bool { return e.state("docs").Phase == watchers.PhaseIdle })
	st := e.state("docs")
	if len(st.Skipped) != 1 || !strings.HasPrefix(st.Skipped[0], "locked") {
		t.Fatalf("skipped %q, want the locked folder reported", st.Skipped)
	}
	writeFile(t, filepath.Join(dir, "open", "b.txt"), "b")
	e.until("a run for the readable part", 100*time.Millisecond, func() bool { _, ends, _ := e.runner.snapshot(); return len(ends) == 1 })
	passes, _, _ := e.runner.snapshot()
	if got := passes[0].Changes.Added; len(got) != 1 || got[0] != "open/b.txt" {
		t.Fatalf("changes %+v", passes[0].Changes)
	}
}
