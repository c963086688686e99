package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seed fills the watched folder with a small known tree.
func (e *env) seed() {
	e.t.Helper()
	write(e.t, filepath.Join(e.root, "a.txt"), "hello world")
	write(e.t, filepath.Join(e.root, "docs", "b.md"), "# B\nline two\nline two again\n")
	write(e.t, filepath.Join(e.root, "docs", "sub", "c.txt"), "c")
	write(e.t, filepath.Join(e.root, "big.txt"), strings.Repeat("é", 20000))
	write(e.t, filepath.Join(e.root, "bin.dat"), "ab\x00cd")
	write(e.t, filepath.Join(e.outside, "secret.txt"), "secret")
	for i := 0; i < 25; i++ {
		write(e.t, filepath.Join(e.root, "many", fmt.Sprintf("f%02d", i)), "x")
	}
	if err := os.Symlink("docs", filepath.Join(e.root, "inlink")); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Symlink(e.outside, filepath.Join(e.root, "outlink")); err != nil {
		e.t.Fatal(err)
	}
}

type toolCase struct {
	name    string
	tool    string
	args    map[string]any
	wantErr string // substring of the ToolError; "" means success
	wantOut []string
	check   func(t *testing.T, e *env)
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

var toolCases = []toolCase{
	{name: "tree root", tool: "file_tree", args: map[string]any{}, wantOut: []string{"a.txt (11 B)", "docs/", "    sub/", "      c.txt", "inlink -> docs", "+5 more"}},
	{name: "tree sub", tool: "file_tree", args: map[string]any{"path": "docs"}, wantOut: []string{"docs/", "b.md"}},
	{name: "tree missing", tool: "file_tree", args: map[string]any{"path": "nope"}, wantErr: "does not exist"},
	{name: "tree of a file", tool: "file_tree", args: map[string]any{"path": "a.txt"}, wantErr: "not a folder; use file_read"},
	{name: "read tilde", tool: "file_read", args: map[string]any{"path": "~/a.txt"}, wantErr: "not expanded"},
	{name: "read file", tool: "file_read", args: map[string]any{"path": "a.txt"}, wantOut: []string{"hello world"}},
	{name: "read absolute inside", tool: "file_read", args: map[string]any{"path": "@root/a.txt"}, wantOut: []string{"hello world"}},
	{name: "read cut", tool: "file_read", args: map[string]any{"path": "big.txt"}, wantOut: []string{"cut: showed the first 15000 characters", "10000 bytes not shown"}},
	{name: "read dir lists", tool: "file_read", args: map[string]any{"path": "docs"}, wantOut: []string{"is a folder", "b.md", "sub/"}},
	{name: "read binary", tool: "file_read", args: map[string]any{"path": "bin.dat"}, wantOut: []string{"bin.dat is a binary file (application/octet-stream, 5 B)", "cannot be shown as text"}},
	{name: "read via inside link", tool: "file_read", args: map[string]any{"path": "inlink/b.md"}, wantOut: []string{"line two"}},
	{name: "read missing", tool: "file_read", args: map[string]any{"path": "zz.txt"}, wantErr: "does not exist"},
	{name: "read no path", tool: "file_read", args: map[string]any{}, wantErr: `needs "path"`},
	{name: "write new with parents", tool: "file_write", args: map[string]any{"path": "new/deep/n.txt", "content": "N"}, wantOut: []string{"wrote 1 bytes"},
		check: func(t *testing.T, e *env) {
			if e.read("new/deep/n.txt") != "N" {
				t.Error("content")
			}
			if n := len(e.ledger.Snapshot()); n != 3 {
				t.Errorf("want 2 mkdir + 1 write effects, got %d", n)
			}
		}},
	{name: "write existing refused", tool: "file_write", args: map[string]any{"path": "a.txt", "content": "x"}, wantErr: "already exists",
		check: func(t *testing.T, e *env) {
			if e.read("a.txt") != "hello world" {
				t.Error("replaced")
			}
		}},
	{name: "write overwrite backs up", tool: "file_write", args: map[string]any{"path": "a.txt", "content": "bye", "overwrite": true}, wantOut: []string{"backed up"},
		check: func(t *testing.T, e *env) {
			eff := e.ledger.Snapshot()
			if len(eff) != 1 || eff[0].Backup == "" {
				t.Fatalf("effects %+v", eff)
			}
			data, _ := os.ReadFile(filepath.Join(e.backups, eff[0].Backup))
			if string(data) != "hello world" || e.read("a.txt") != "bye" {
				t.Errorf("backup %q, file %q", data, e.read("a.txt"))
			}
		}},
	{name: "write overwrite of a folder", tool: "file_write", args: map[string]any{"path": "docs", "content": "x", "overwrite": true}, wantErr: "not a regular file"},
	{name: "write no content", tool: "file_write", args: map[string]any{"path": "q.txt"}, wantErr: `needs "content"`},
	{name: "write the folder", tool: "file_write", args: map[string]any{"path": ".", "content": "x"}, wantErr: "not the watched folder"},
	{name: "edit unique", tool: "file_edit", args: map[string]any{"path": "a.txt", "old": "world", "new": "there"},
		check: func(t *testing.T, e *env) {
			if e.read("a.txt") != "hello there" {
				t.Error(e.read("a.txt"))
			}
			if eff := e.ledger.Snapshot(); len(eff) != 1 || eff[0].Op != OpEdit || eff[0].Backup == "" {
				t.Errorf("effects %+v", eff)
			}
		}},
	{name: "edit not found", tool: "file_edit", args: map[string]any{"path": "a.txt", "old": "nope", "new": ""}, wantErr: "was not found"},
	{name: "edit ambiguous", tool: "file_edit", args: map[string]any{"path": "docs/b.md", "old": "line two", "new": "x"}, wantErr: "occurs 2 times"},
	{name: "edit empty old", tool: "file_edit", args: map[string]any{"path": "a.txt", "old": "", "new": "x"}, wantErr: "non-empty"},
	{name: "move", tool: "file_move", args: map[string]any{"from": "a.txt", "to": "archive/2024/a.txt"}, wantOut: []string{"moved a.txt to archive/2024/a.txt"},
		check: func(t *testing.T, e *env) {
			if exists(filepath.Join(e.root, "a.txt")) || e.read("archive/2024/a.txt") != "hello world" {
				t.Error("not moved")
			}
		}},
	{name: "move into folder", tool: "file_move", args: map[string]any{"from": "a.txt", "to": "docs"}, wantOut: []string{"docs/a.txt"}},
	{name: "move onto existing", tool: "file_move", args: map[string]any{"from": "a.txt", "to": "docs/b.md"}, wantErr: "never replaces",
		check: func(t *testing.T, e *env) {
			if e.read("docs/b.md") != "# B\nline two\nline two again\n" || e.read("a.txt") != "hello world" {
				t.Error("replaced")
			}
		}},
	{name: "move missing", tool: "file_move", args: map[string]any{"from": "zz", "to": "y"}, wantErr: "does not exist"},
	{name: "move folder into itself", tool: "file_move", args: map[string]any{"from": "docs", "to": "docs/sub/x"}, wantErr: "inside itself"},
	{name: "copy file", tool: "file_copy", args: map[string]any{"from": "a.txt", "to": "a2.txt"},
		check: func(t *testing.T, e *env) {
			if e.read("a2.txt") != "hello world" || e.read("a.txt") != "hello world" {
				t.Error("copy")
			}
		}},
	{name: "copy folder", tool: "file_copy", args: map[string]any{"from": "docs", "to": "docs2"},
		check: func(t *testing.T, e *env) {
			if e.read("docs2/sub/c.txt") != "c" {
				t.Error("copy")
			}
		}},
	{name: "copy onto existing", tool: "file_copy", args: map[string]any{"from": "a.txt", "to": "big.txt"}, wantErr: "never replaces"},
	{name: "mkdir nested", tool: "dir_create", args: map[string]any{"path": "x/y/z"}, wantOut: []string{"created x, x/y, x/y/z"}},
	{name: "mkdir existing", tool: "dir_create", args: map[string]any{"path": "docs"}, wantOut: []string{"already exists"}},
	{name: "mkdir over file", tool: "dir_create", args: map[string]any{"path": "a.txt/x"}, wantErr: "not a folder"},
	{name: "delete to trash", tool: "file_delete", args: map[string]any{"path": "docs/sub"}, wantOut: []string{"trash"},
		check: func(t *testing.T, e *env) {
			eff := e.ledger.Snapshot()
			if len(eff) != 1 || eff[0].TrashPath == "" {
				t.Fatalf("effects %+v", eff)
			}
			data, err := os.ReadFile(filepath.Join(eff[0].TrashPath, "c.txt"))
			if err != nil || string(data) != "c" || exists(filepath.Join(e.root, "docs/sub")) {
				t.Errorf("trash content %q %v", data, err)
			}
		}},
	{name: "delete missing", tool: "file_delete", args: map[string]any{"path": "zz"}, wantErr: "does not exist"},
	{name: "delete root", tool: "file_delete", args: map[string]any{"path": "."}, wantErr: "watched folder itself"},
	{name: "metadata file", tool: "file_metadata", args: map[string]any{"path": "a.txt"}, wantOut: []string{"kind: file", "size: 11 bytes", "mode: -rw-r--r--"}},
	{name: "metadata root", tool: "file_metadata", args: map[string]any{"path": ""}, wantOut: []string{"kind: folder"}},
	{name: "metadata link", tool: "file_metadata", args: map[string]any{"path": "outlink"}, wantOut: []string{"kind: symbolic link", "target: "}},
	{name: "search glob", tool: "file_search", args: map[string]any{"pattern": "*.md"}, wantOut: []string{"docs/b.md"}},
	{name: "search deep glob", tool: "file_search", args: map[string]any{"pattern": "docs/**/*.txt"}, wantOut: []string{"docs/sub/c.txt"}},
	{name: "search substring", tool: "file_search", args: map[string]any{"pattern": "B.M"}, wantOut: []string{"docs/b.md"}},
	{name: "search content", tool: "file_search", args: map[string]any{"pattern": "line TWO", "content": true}, wantOut: []string{"docs/b.md:2: line two", "docs/b.md:3:"}},
	{name: "search none", tool: "file_search", args: map[string]any{"pattern": "zzz"}, wantOut: []string{"no matches"}},
	{name: "search bad glob", tool: "file_search", args: map[string]any{"pattern": "[a"}, wantErr: "not a valid glob"},
	{name: "search no pattern", tool: "file_search", args: map[string]any{}, wantErr: `non-empty "pattern"`},
	{name: "unknown tool", tool: "file_explode", args: map[string]any{}, wantErr: "unknown tool"},
}

func TestTools(t *testing.T) {
	for _, walkMode := range []bool{false, true} {
		for _, tc := range toolCases {
			t.Run(fmt.Sprintf("walk=%v/%s", walkMode, tc.name), func(t *testing.T) {
				e := newEnv(t, false)
				e.box.fs.forceWalk = walkMode
				e.seed()
				args := map[string]any{}
				for k, v := range tc.args {
					if s, ok := v.(string); ok {
						v = strings.ReplaceAll(s, "@root", e.root)
					}
					args[k] = v
				}
				out, err := e.call(tc.tool, args)
				if tc.wantErr != "" {
					if err == nil || !isToolError(err) || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("want ToolError containing %q, got out=%q err=%v", tc.wantErr, out, err)
					}
				} else if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				for _, w := range tc.wantOut {
					if !strings.Contains(out, w) {
						t.Errorf("output lacks %q:\n%s", w, out)
					}
				}
				if tc.check != nil {
					tc.check(t, e)
				}
			})
		}
	}
}

func TestMalformedArgs(t *testing.T) {
	e := newEnv(t, false)
	_, err := e.box.Call(context.Background(), "file_write", json.RawMessage(`{"path": 3}`))
	if !isToolError(err) || !containsAll(err.Error(), "must be a JSON object", `"content"`) {
		t.Fatalf("got %v", err)
	}
	_, err = e.box.Call(context.Background(), "file_tree", json.RawMessage(``))
	if err != nil {
		t.Fatalf("empty arguments should mean {}: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.box.Call(ctx, "file_tree", nil); err != context.Canceled {
		t.Fatalf("cancelled call: %v", err)
	}
}

func TestSpecs(t *testing.T) {
	specs := Specs()
	if len(specs) != 10 {
		t.Fatalf("%d specs", len(specs))
	}
	for _, s := range specs {
		if _, ok := handlers[s.Name]; !ok {
			t.Errorf("spec %s has no handler", s.Name)
		}
		if s.Parameters["type"] != "object" || s.Description == "" {
			t.Errorf("spec %s malformed", s.Name)
		}
		if _, err := json.Marshal(s.Parameters); err != nil {
			t.Errorf("spec %s: %v", s.Name, err)
		}
	}
}
