package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// env is one test setup: a watched folder, an outside folder, a trash and a
// backup folder, all in temp dirs.
type env struct {
	t       *testing.T
	root    string
	outside string
	trash   string
	backups string
	ledger  *Ledger
	box     *Box
}

type fixedClock struct{ t time.Time }

func (c *fixedClock) now() time.Time { c.t = c.t.Add(time.Second); return c.t }

func newEnv(t *testing.T, dry bool) *env {
	t.Helper()
	base := t.TempDir()
	e := &env{t: t,
		root:    filepath.Join(base, "watched"),
		outside: filepath.Join(base, "outside"),
		trash:   filepath.Join(base, "trash"),
		backups: filepath.Join(base, "runs", "w1", "r1"),
		ledger:  NewLedger("w1", "r1"),
	}
	for _, d := range []string{e.root, e.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.reopen(dry)
	return e
}

func (e *env) opts(dry bool) Options {
	clk := &fixedClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	return Options{DryRun: dry, Trash: FreedesktopTrash{Dir: e.trash}, BackupDir: e.backups, Now: clk.now}
}

func (e *env) reopen(dry bool) {
	e.t.Helper()
	if e.box != nil {
		e.box.Close()
	}
	b, err := New(e.root, e.ledger, e.opts(dry))
	if err != nil {
		e.t.Fatal(err)
	}
	e.box = b
	e.t.Cleanup(func() { b.Close() })
}

// write creates a file (and parents) directly, outside the tools.
func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (e *env) call(name string, args map[string]any) (string, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.box.Call(context.Background(), name, raw)
}

func (e *env) mustCall(name string, args map[string]any) string {
	e.t.Helper()
	out, err := e.call(name, args)
	if err != nil {
		e.t.Fatalf("%s %v: %v", name, args, err)
	}
	return out
}

func (e *env) read(rel string) string {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.root, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

// snapshot maps every entry below dir to its kind, mode and content (or
// link target).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case fi.IsDir():
			out[rel] = fmt.Sprintf("dir %v", fi.Mode().Perm())
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("file %v %q", fi.Mode().Perm(), data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			out = append(out, "gone: "+k)
		} else if w != v {
			out = append(out, fmt.Sprintf("changed: %s: %s → %s", k, v, w))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "new: "+k)
		}
	}
	sort.Strings(out)
	return out
}

func isToolError(err error) bool {
	var te *ToolError
	return errors.As(err, &te)
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
