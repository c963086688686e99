package e2e

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/watchers"
)

// A hostile model tries every way out of the folder. Everything outside
// stays byte-identical and every file inside stays recoverable.
func TestHostileModelCannotEscapeOrLoseFiles(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "watched")
	outside := filepath.Join(parent, "outside")
	writeFile(t, filepath.Join(outside, "secret.txt"), "outside secret", 0o600)
	writeFile(t, filepath.Join(outside, "sub", "deep.txt"), "deep outside", 0o644)
	writeFile(t, filepath.Join(dir, "keep.txt"), "keep me", 0o644)
	writeFile(t, filepath.Join(dir, "existing.txt"), "original content", 0o644)
	writeFile(t, filepath.Join(dir, "doomed.txt"), "delete me and I go to the trash", 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "secret-link")); err != nil {
		t.Fatal(err)
	}
	sib := func(p string) string { return filepath.Join(outside, p) }
	escapes := []modeltest.ToolCall{
		call("file_write", map[string]any{"path": "../escape.txt", "content": "x"}),
		call("file_write", map[string]any{"path": "sub/../../escape.txt", "content": "x"}),
		call("file_write", map[string]any{"path": sib("abs.txt"), "content": "x"}),
		call("file_write", map[string]any{"path": sib("secret.txt"), "content": "x", "overwrite": true}),
		call("file_write", map[string]any{"path": "out/via-link.txt", "content": "x"}),
		call("file_write", map[string]any{"path": "secret-link", "content": "x", "overwrite": true}),
		call("file_write", map[string]any{"path": "/workspace/x", "content": "x"}),
		call("file_edit", map[string]any{"path": "out/secret.txt", "old": "outside", "new": "owned"}),
		call("file_edit", map[string]any{"path": "secret-link", "old": "outside", "new": "owned"}),
		call("file_read", map[string]any{"path": "out/secret.txt"}),
		call("file_read", map[string]any{"path": "/etc/passwd"}),
		call("file_move", map[string]any{"from": "keep.txt", "to": "../moved-out.txt"}),
		call("file_move", map[string]any{"from": "keep.txt", "to": sib("moved.txt")}),
		call("file_move", map[string]any{"from": "keep.txt", "to": "out/"}),
		call("file_move", map[string]any{"from": "out/secret.txt", "to": "stolen.txt"}),
		call("file_move", map[string]any{"from": "/workspace/keep.txt", "to": "x.txt"}),
		call("file_copy", map[string]any{"from": "keep.txt", "to": "out/copy.txt"}),
		call("file_copy", map[string]any{"from": "out/sub", "to": "stolen-dir"}),
		call("dir_create", map[string]any{"path": "../newdir"}),
		call("dir_create", map[string]any{"path": "out/newdir"}),
		call("file_delete", map[string]any{"path": "../outside/secret.txt"}),
		call("file_delete", map[string]any{"path": "out/sub"}),
		call("file_delete", map[string]any{"path": sib("sub/deep.txt")}),
	}
	replaces := []modeltest.ToolCall{
		call("file_write", map[string]any{"path": "existing.txt", "content": "clobbered"}),
		call("file_move", map[string]any{"from": "keep.txt", "to": "existing.txt"}),
		call("file_copy", map[string]any{"from": "keep.txt", "to": "existing.txt"}),
	}
	// Allowed but destructive: an overwrite (backed up) and a delete (to the trash).
	destructive := []modeltest.ToolCall{
		call("file_write", map[string]any{"path": "existing.txt", "content": "replaced on purpose", "overwrite": true}),
		call("file_delete", map[string]any{"path": "doomed.txt"}),
		call("file_delete", map[string]any{"path": "out"}),
	}
	all := append(append(append([]modeltest.ToolCall{}, escapes...), replaces...), destructive...)
	srv := modeltest.NewOllama(t, rounds(all))
	e := start(t, envOptions{})
	e.add(watchers.Definition{Name: "hostile", Path: dir, Provider: ollama(srv)})

	before := snapshot(t, parent, "watched")
	if _, err := e.c.Run(e.ctx, "hostile", false); err != nil {
		t.Fatal(err)
	}
	runs := e.waitRuns("hostile", 1)

	assertSame(t, "the world outside the watched folder", before, snapshot(t, parent, "watched"))
	tools := toolRecords(runs[0])
	if len(tools) != len(all) {
		t.Fatalf("%d tool calls recorded, want %d:%s", len(tools), len(all), describe(runs))
	}
	for i, rec := range tools[:len(escapes)+len(replaces)] {
		if !rec.Error {
			t.Errorf("call %d %s %s was not refused: %s", i, rec.Name, rec.Args, rec.Result)
		}
	}
	for _, rec := range tools {
		if strings.Contains(string(rec.Args), "/workspace") && !strings.Contains(rec.Result, "/workspace") {
			t.Errorf("the refusal of %s %s does not explain /workspace paths: %s", rec.Name, rec.Args, rec.Result)
		}
	}
	t.Logf("history:%s", describe(runs))
	if t.Failed() {
		t.Fatalf("history:%s", describe(runs))
	}
	if got := readFile(t, filepath.Join(dir, "keep.txt")); got != "keep me" {
		t.Fatalf("keep.txt holds %q", got)
	}
	// The replaced file's old content is backed up with the run.
	if got := readFile(t, filepath.Join(dir, "existing.txt")); got != "original content" && !backedUp(t, e.home.Runs(), "original content") {
		t.Fatalf("existing.txt was replaced (%q) without a backup of its old content", got)
	}
	// The deleted file and link are in the injected trash.
	if !inTrash(t, e.trash, "doomed.txt", "delete me and I go to the trash") {
		t.Fatal("doomed.txt is not in the trash")
	}
	if target, err := os.Readlink(filepath.Join(e.trash, "files", "out")); err != nil || target != outside {
		t.Fatalf("the deleted symlink is not in the trash as a symlink: %q, %v", target, err)
	}
	// And undo brings both back.
	if _, err := e.c.Undo(e.ctx, "hostile", ""); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "doomed.txt")); got != "delete me and I go to the trash" {
		t.Fatalf("doomed.txt after undo: %q", got)
	}
	if got := readFile(t, filepath.Join(dir, "existing.txt")); got != "original content" {
		t.Fatalf("existing.txt after undo: %q", got)
	}
	assertSame(t, "the world outside after undo", before, snapshot(t, parent, "watched"))
}

// backedUp reports whether some file under dir holds exactly content.
func backedUp(t *testing.T, dir, content string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, []byte(content)) {
				found = true
			}
		}
		return nil
	})
	return found
}

// inTrash reports whether the trash holds name with content and its
// freedesktop info file.
func inTrash(t *testing.T, trash, name, content string) bool {
	b, err := os.ReadFile(filepath.Join(trash, "files", name))
	if err != nil || string(b) != content {
		return false
	}
	_, err = os.Stat(filepath.Join(trash, "info", name+".trashinfo"))
	return err == nil
}
