package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileModel plays a model that tries every way out of the folder
// and every way to lose data. Everything outside must stay byte-identical
// and everything inside must be recoverable (Undo brings the folder back).
func TestHostileModel(t *testing.T) {
	for _, walkMode := range []bool{false, true} {
		t.Run(map[bool]string{false: "openat2", true: "walk"}[walkMode], func(t *testing.T) {
			e := newEnv(t, false)
			e.box.fs.forceWalk = walkMode
			e.seed()
			if err := os.Symlink("../outside", filepath.Join(e.root, "rel-esc")); err != nil {
				t.Fatal(err)
			}
			outBefore := snapshot(t, e.outside)
			inBefore := snapshot(t, e.root)
			abs := func(p string) string { return filepath.Join(e.outside, p) }
			attempts := []struct {
				tool    string
				args    map[string]any
				wantErr string
			}{
				{"file_read", map[string]any{"path": "../outside/secret.txt"}, "outside the watched folder"},
				{"file_read", map[string]any{"path": abs("secret.txt")}, "outside the watched folder"},
				{"file_read", map[string]any{"path": "outlink/secret.txt"}, "leads outside"},
				{"file_read", map[string]any{"path": "rel-esc/secret.txt"}, "leads outside"},
				{"file_read", map[string]any{"path": "/workspace/a.txt"}, "there is no /workspace"},
				{"file_write", map[string]any{"path": "../outside/x", "content": "pwn"}, "outside the watched folder"},
				{"file_write", map[string]any{"path": "docs/../../outside/x", "content": "pwn"}, "outside the watched folder"},
				{"file_write", map[string]any{"path": abs("x"), "content": "pwn"}, "outside the watched folder"},
				{"file_write", map[string]any{"path": "/workspace/x", "content": "pwn"}, "host-folder mode"},
				{"file_write", map[string]any{"path": "outlink/pwn.txt", "content": "pwn"}, "leads outside"},
				{"file_write", map[string]any{"path": "rel-esc/pwn.txt", "content": "pwn"}, "leads outside"},
				{"file_write", map[string]any{"path": "outlink/secret.txt", "content": "pwn", "overwrite": true}, "leads outside"},
				{"file_write", map[string]any{"path": "outlink", "content": "pwn", "overwrite": true}, "not a regular file"},
				{"file_write", map[string]any{"path": "a.txt", "content": "pwn"}, "already exists"},
				{"file_edit", map[string]any{"path": "outlink/secret.txt", "old": "secret", "new": "pwn"}, "leads outside"},
				{"file_edit", map[string]any{"path": "outlink", "old": "secret", "new": "pwn"}, "not a regular file"},
				{"dir_create", map[string]any{"path": "outlink/newdir"}, "leads outside"},
				{"dir_create", map[string]any{"path": "../evil"}, "outside the watched folder"},
				{"file_move", map[string]any{"from": "a.txt", "to": "../outside/a.txt"}, "outside the watched folder"},
				{"file_move", map[string]any{"from": "a.txt", "to": abs("a.txt")}, "outside the watched folder"},
				{"file_move", map[string]any{"from": "a.txt", "to": "outlink/a.txt"}, "leads outside"},
				{"file_move", map[string]any{"from": "a.txt", "to": "outlink"}, "leads outside"},
				{"file_move", map[string]any{"from": "outlink/secret.txt", "to": "stolen.txt"}, "leads outside"},
				{"file_move", map[string]any{"from": "a.txt", "to": "docs/b.md"}, "never replaces"},
				{"file_move", map[string]any{"from": "/workspace/a.txt", "to": "b.txt"}, "no /workspace"},
				{"file_copy", map[string]any{"from": "outlink/secret.txt", "to": "stolen.txt"}, "leads outside"},
				{"file_copy", map[string]any{"from": "a.txt", "to": "rel-esc/a.txt"}, "leads outside"},
				{"file_copy", map[string]any{"from": "a.txt", "to": "big.txt"}, "never replaces"},
				{"file_delete", map[string]any{"path": "outlink/secret.txt"}, "leads outside"},
				{"file_delete", map[string]any{"path": "../outside/secret.txt"}, "outside the watched folder"},
				{"file_delete", map[string]any{"path": e.root}, "watched folder itself"},
				{"file_tree", map[string]any{"path": "outlink"}, "leads outside"},
				{"file_tree", map[string]any{"path": ".."}, "outside the watched folder"},
				{"file_search", map[string]any{"pattern": "secret", "path": "outlink", "content": true}, "leads outside"},
				{"file_metadata", map[string]any{"path": "outlink/secret.txt"}, "leads outside"},
			}
			for _, a := range attempts {
				out, err := e.call(a.tool, a.args)
				if err == nil || !isToolError(err) || !strings.Contains(err.Error(), a.wantErr) {
					t.Errorf("%s %v: want refusal containing %q, got out=%q err=%v", a.tool, a.args, a.wantErr, out, err)
				}
			}
			// allowed but destructive-looking: all recoverable
			for _, a := range []struct {
				tool string
				args map[string]any
			}{
				{"file_delete", map[string]any{"path": "a.txt"}},
				{"file_delete", map[string]any{"path": "outlink"}}, // the link itself, not its target
				{"file_move", map[string]any{"from": "rel-esc", "to": "moved-link"}},
				{"file_write", map[string]any{"path": "big.txt", "content": "clobbered", "overwrite": true}},
				{"file_edit", map[string]any{"path": "docs/sub/c.txt", "old": "c", "new": "C"}},
				{"file_delete", map[string]any{"path": "docs"}},
			} {
				e.mustCall(a.tool, a.args)
			}
			// the search walk must not follow links out
			if out := e.mustCall("file_search", map[string]any{"pattern": "secret", "content": true}); strings.Contains(out, "secret.txt") {
				t.Errorf("search followed a link out: %s", out)
			}
			if d := diffSnapshots(outBefore, snapshot(t, e.outside)); len(d) > 0 {
				t.Fatalf("outside changed: %v", d)
			}
			if data, err := os.ReadFile(filepath.Join(e.trash, "files", "a.txt")); err != nil || string(data) != "hello world" {
				t.Fatalf("deleted a.txt is not in the trash: %q %v", data, err)
			}
			rep, err := Undo(e.root, e.ledger, e.opts(false))
			if err != nil {
				t.Fatalf("undo: %v (%+v)", err, rep)
			}
			if d := diffSnapshots(inBefore, snapshot(t, e.root)); len(d) > 0 {
				t.Fatalf("folder not restored: %v", d)
			}
			if d := diffSnapshots(outBefore, snapshot(t, e.outside)); len(d) > 0 {
				t.Fatalf("outside changed by undo: %v", d)
			}
		})
	}
}
