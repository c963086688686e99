package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHardLinkToOutsideIsNotUsed puts a hard link to a file outside the
// folder inside it (as another user or an earlier program could): no tool
// may read or change it unless the watcher allows hard links.
func TestHardLinkToOutsideIsNotUsed(t *testing.T) {
	e := newEnv(t, false)
	secret := filepath.Join(e.outside, "secret.txt")
	write(t, secret, "secret outside")
	write(t, filepath.Join(e.root, "a.txt"), "a")
	if err := os.Mkdir(filepath.Join(e.root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"link.txt", "d/inner.txt"} {
		if err := os.Link(secret, filepath.Join(e.root, p)); err != nil {
			t.Fatal(err)
		}
	}
	outBefore := snapshot(t, e.outside)
	inBefore := snapshot(t, e.root)
	attempts := []struct {
		tool string
		args map[string]any
	}{
		{"file_read", map[string]any{"path": "link.txt"}},
		{"file_edit", map[string]any{"path": "link.txt", "old": "secret", "new": "pwn"}},
		{"file_write", map[string]any{"path": "link.txt", "content": "pwn", "overwrite": true}},
		{"file_move", map[string]any{"from": "link.txt", "to": "moved.txt"}},
		{"file_copy", map[string]any{"from": "link.txt", "to": "copy.txt"}},
		{"file_copy", map[string]any{"from": "d", "to": "dcopy"}},
		{"file_delete", map[string]any{"path": "link.txt"}},
	}
	for _, a := range attempts {
		out, err := e.call(a.tool, a.args)
		if err == nil || !containsAll(err.Error(), "hard link", "allowHardLinks") {
			t.Errorf("%s %v: want a refusal explaining hard links, got %q, %v", a.tool, a.args, out, err)
		}
		if strings.Contains(out, "secret outside") || (err != nil && strings.Contains(err.Error(), "secret outside")) {
			t.Errorf("%s %v showed the outside content", a.tool, a.args)
		}
	}
	out, err := e.call("file_search", map[string]any{"pattern": "secret", "content": true})
	if err != nil || strings.Contains(out, "link.txt") || strings.Contains(out, "inner.txt") {
		t.Errorf("file_search content found text through a hard link: %q, %v", out, err)
	}
	if d := diffSnapshots(outBefore, snapshot(t, e.outside)); len(d) > 0 {
		t.Errorf("outside changed: %v", d)
	}
	if d := diffSnapshots(inBefore, snapshot(t, e.root)); len(d) > 0 {
		t.Errorf("inside changed: %v", d)
	}

	// The watcher may allow them.
	opts := e.opts(false)
	opts.AllowHardLinks = true
	b, err := New(e.root, e.ledger, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	e.box = b
	if out := e.mustCall("file_read", map[string]any{"path": "link.txt"}); out != "secret outside" {
		t.Fatalf("with allowHardLinks file_read = %q", out)
	}
}
