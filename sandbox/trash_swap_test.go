package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUndoChecksTheTrashedEntry swaps what lies in the trash after a
// delete: undo must not bring back anything but what the run put there.
func TestUndoChecksTheTrashedEntry(t *testing.T) {
	swaps := map[string]func(t *testing.T, p string){
		"other file, same size and time": func(t *testing.T, p string) {
			fi, _ := os.Stat(p)
			os.Remove(p)
			write(t, p, "PRIVATE")
			os.Chtimes(p, fi.ModTime(), fi.ModTime())
		},
		"content changed in place": func(t *testing.T, p string) {
			fi, _ := os.Stat(p)
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt([]byte("PRIVATE"), 0)
			f.Close()
			os.Chtimes(p, fi.ModTime(), fi.ModTime())
		},
		"a link to an outside file": func(t *testing.T, p string) {
			os.Remove(p)
			os.Symlink("/etc/passwd", p)
		},
		"a folder": func(t *testing.T, p string) {
			os.Remove(p)
			os.Mkdir(p, 0o755)
		},
	}
	for name, swap := range swaps {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, false)
			write(t, filepath.Join(e.root, "a.txt"), "trashed")
			old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
			os.Chtimes(filepath.Join(e.root, "a.txt"), old, old)
			e.mustCall("file_delete", map[string]any{"path": "a.txt"})
			tp := e.ledger.Snapshot()[0].TrashPath
			swap(t, tp)
			rep, err := Undo(e.root, e.ledger, e.opts(false))
			msg := strings.Join(rep.Conflicts, "\n")
			if err == nil || !strings.Contains(msg, "a.txt") || !strings.Contains(msg, "trash") {
				t.Fatalf("undo over a swapped trash entry: %v %q", err, msg)
			}
			if _, err := os.Lstat(filepath.Join(e.root, "a.txt")); !os.IsNotExist(err) {
				t.Fatalf("something was restored: %v", err)
			}
		})
	}
	t.Run("untouched", func(t *testing.T) {
		e := newEnv(t, false)
		write(t, filepath.Join(e.root, "a.txt"), "trashed")
		e.mustCall("file_delete", map[string]any{"path": "a.txt"})
		if _, err := Undo(e.root, e.ledger, e.opts(false)); err != nil {
			t.Fatal(err)
		}
		if e.read("a.txt") != "trashed" {
			t.Fatal("not restored")
		}
	})
}
