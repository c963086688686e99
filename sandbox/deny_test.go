//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelCannotReachTendsOwnFiles plays a model in a folder that holds
// TEND_HOME (a watcher on ~ holds ~/.config/tend) and the tend program. It
// tries every tool, by plain paths and through links, to read, change,
// move, copy or list them; a watcher definition written there would make
// the daemon run the model's command.
func TestModelCannotReachTendsOwnFiles(t *testing.T) {
	for _, walkMode := range []bool{false, true} {
		t.Run(map[bool]string{false: "openat2", true: "walk"}[walkMode], func(t *testing.T) {
			e := newEnv(t, false)
			write(t, filepath.Join(e.root, ".config/tend/watchers/w.json"), `{"check":"secret-setting"}`)
			write(t, filepath.Join(e.root, ".config/other.conf"), "fine")
			write(t, filepath.Join(e.root, "bin/tend"), "#!tend-program")
			write(t, filepath.Join(e.root, "bin/other"), "fine")
			write(t, filepath.Join(e.root, "a.txt"), "hello")
			for name, target := range map[string]string{"cfg": ".config", "home": ".config/tend", "wlink": ".config/tend/watchers/w.json", "binlink": "bin/tend", "bins": "bin"} {
				if err := os.Symlink(target, filepath.Join(e.root, name)); err != nil {
					t.Fatal(err)
				}
			}
			opts := e.opts(false)
			opts.Deny = []string{".config/tend", "bin/tend"}
			b, err := New(e.root, e.ledger, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			b.fs.forceWalk = walkMode
			e.box = b
			home := filepath.Join(e.root, ".config/tend")
			before := snapshot(t, home)
			const own = "tend's own"
			attempts := []struct {
				tool string
				args map[string]any
			}{
				{"file_tree", map[string]any{"path": ".config/tend"}},
				{"file_tree", map[string]any{"path": "home"}},
				{"file_tree", map[string]any{"path": "cfg/tend/watchers"}},
				{"file_read", map[string]any{"path": ".config/tend/watchers/w.json"}},
				{"file_read", map[string]any{"path": "home/watchers/w.json"}},
				{"file_read", map[string]any{"path": "cfg/tend/watchers/w.json"}},
				{"file_read", map[string]any{"path": "wlink"}},
				{"file_read", map[string]any{"path": "bin/tend"}},
				{"file_read", map[string]any{"path": "binlink"}},
				{"file_read", map[string]any{"path": "home"}},
				{"file_write", map[string]any{"path": ".config/tend/watchers/evil.json", "content": "{}"}},
				{"file_write", map[string]any{"path": "home/watchers/evil.json", "content": "{}"}},
				{"file_write", map[string]any{"path": "cfg/tend/watchers/w.json", "content": "{}", "overwrite": true}},
				{"file_write", map[string]any{"path": "bin/tend", "content": "evil", "overwrite": true}},
				{"file_write", map[string]any{"path": "bins/tend", "content": "evil", "overwrite": true}},
				{"file_edit", map[string]any{"path": ".config/tend/watchers/w.json", "old": "secret", "new": "evil"}},
				{"file_edit", map[string]any{"path": "home/watchers/w.json", "old": "secret", "new": "evil"}},
				{"file_edit", map[string]any{"path": "bins/tend", "old": "tend", "new": "evil"}},
				{"file_move", map[string]any{"from": ".config/tend", "to": "moved"}},
				{"file_move", map[string]any{"from": ".config", "to": "moved"}},
				{"file_move", map[string]any{"from": "home/watchers/w.json", "to": "stolen.json"}},
				{"file_move", map[string]any{"from": "a.txt", "to": ".config/tend/watchers/a.json"}},
				{"file_move", map[string]any{"from": "a.txt", "to": "home/watchers"}},
				{"file_move", map[string]any{"from": "bin", "to": "moved"}},
				{"file_copy", map[string]any{"from": "home/watchers/w.json", "to": "stolen.json"}},
				{"file_copy", map[string]any{"from": ".config", "to": "copied"}},
				{"file_copy", map[string]any{"from": "a.txt", "to": "cfg/tend/watchers/a.json"}},
				{"file_copy", map[string]any{"from": "bin/tend", "to": "t"}},
				{"dir_create", map[string]any{"path": ".config/tend/watchers/x"}},
				{"dir_create", map[string]any{"path": "home/x"}},
				{"dir_create", map[string]any{"path": "cfg/tend/x"}},
				{"file_delete", map[string]any{"path": ".config/tend"}},
				{"file_delete", map[string]any{"path": ".config"}},
				{"file_delete", map[string]any{"path": "home/watchers/w.json"}},
				{"file_delete", map[string]any{"path": "bin"}},
				{"file_delete", map[string]any{"path": "bins/tend"}},
				{"file_metadata", map[string]any{"path": ".config/tend"}},
				{"file_metadata", map[string]any{"path": "home/watchers/w.json"}},
				{"file_metadata", map[string]any{"path": "cfg/tend"}},
				{"file_metadata", map[string]any{"path": "bins/tend"}},
				{"file_search", map[string]any{"pattern": "w.json", "path": "home"}},
				{"file_search", map[string]any{"pattern": "secret", "path": "cfg/tend", "content": true}},
			}
			for _, a := range attempts {
				out, err := e.call(a.tool, a.args)
				if err == nil || !strings.Contains(err.Error(), own) {
					t.Errorf("%s %v: got %q, %v; want a refusal naming %q", a.tool, a.args, trim(out), err, own)
				}
			}
			// Listings and searches of the folder leave tend's files out.
			listings := []struct {
				tool string
				args map[string]any
			}{
				{"file_tree", map[string]any{}},
				{"file_tree", map[string]any{"path": "cfg"}},
				{"file_read", map[string]any{"path": ".config"}},
				{"file_read", map[string]any{"path": "bins"}},
				{"file_search", map[string]any{"pattern": "*"}},
				{"file_search", map[string]any{"pattern": "*", "path": "cfg"}},
				{"file_search", map[string]any{"pattern": "w.json"}},
				{"file_search", map[string]any{"pattern": "secret", "content": true}},
				{"file_search", map[string]any{"pattern": "tend-program", "content": true}},
			}
			for _, l := range listings {
				out, err := e.call(l.tool, l.args)
				if err != nil {
					t.Errorf("%s %v: %v", l.tool, l.args, err)
					continue
				}
				if strings.HasPrefix(out, "no matches for ") {
					continue // the message repeats the pattern, nothing else
				}
				// The test's own links show their target text, which is no leak.
				var kept []string
				for _, line := range strings.Split(out, "\n") {
					if !strings.Contains(line, " -> ") {
						kept = append(kept, line)
					}
				}
				for _, leak := range []string{"tend/", "watchers", "w.json", "secret", "tend (", "tend-program"} {
					if strings.Contains(strings.Join(kept, "\n"), leak) {
						t.Errorf("%s %v shows %q:\n%s", l.tool, l.args, leak, out)
					}
				}
				if l.tool == "file_tree" && len(l.args) == 0 && !strings.Contains(out, "other.conf") {
					t.Errorf("file_tree hides more than tend's files:\n%s", out)
				}
			}
			if d := diffSnapshots(before, snapshot(t, home)); len(d) > 0 {
				t.Errorf("TEND_HOME changed: %v", d)
			}
			if got := e.read("bin/tend"); got != "#!tend-program" {
				t.Errorf("the tend program was changed to %q", got)
			}
			// Everything else still works.
			e.mustCall("file_read", map[string]any{"path": "cfg/other.conf"})
			e.mustCall("file_copy", map[string]any{"from": "bin/other", "to": "bin/other2"})
			e.mustCall("file_move", map[string]any{"from": ".config/other.conf", "to": "other.conf"})
		})
	}
}

func trim(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
