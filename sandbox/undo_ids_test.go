package sandbox

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUndoRefusesBackupOutsideRunDir edits a ledger so that a backup names
// a file outside the run's folder: undo must refuse instead of copying that
// file into the watched folder.
func TestUndoRefusesBackupOutsideRunDir(t *testing.T) {
	for _, bad := range []string{"../../../outside/secret.txt", "/etc/passwd", "..", "sub/x.bak"} {
		t.Run(strings.ReplaceAll(bad, "/", "_"), func(t *testing.T) {
			e := newEnv(t, false)
			write(t, filepath.Join(e.root, "a.txt"), "old")
			write(t, filepath.Join(e.outside, "secret.txt"), "secret")
			e.mustCall("file_write", map[string]any{"path": "a.txt", "content": "new", "overwrite": true})
			l := e.ledger
			l.Effects[0].Backup = bad
			rep, err := Undo(e.root, l, e.opts(false))
			if err == nil || !strings.Contains(strings.Join(rep.Conflicts, "\n"), "not a backup name") {
				t.Fatalf("undo with backup %q: %v %v", bad, err, rep.Conflicts)
			}
			if got := e.read("a.txt"); got != "new" {
				t.Fatalf("a.txt = %q after a refused undo", got)
			}
		})
	}
}
