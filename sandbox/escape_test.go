package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestToolResultsEscapeNames gives files names with line breaks and other
// control characters: no tool result may carry them raw, so a name cannot
// forge a line of a listing or of a search result.
func TestToolResultsEscapeNames(t *testing.T) {
	e := newEnv(t, false)
	evil := "a\nfake.txt (1 B)"
	dir := "d\r\n  forged/"
	bidi := "x\u202egnp.exe\x1b[31m"
	write(t, filepath.Join(e.root, evil), "needle\rforged.txt:1: needle")
	write(t, filepath.Join(e.root, strings.TrimSuffix(dir, "/"), "in.txt"), "needle")
	write(t, filepath.Join(e.root, bidi), "needle")
	if err := os.Symlink("t\nforgedtarget", filepath.Join(e.root, "l\nink")); err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	results["tree"] = e.mustCall("file_tree", nil)
	results["read dir"] = e.mustCall("file_read", map[string]any{"path": "."})
	results["search names"] = e.mustCall("file_search", map[string]any{"pattern": "*"})
	results["search content"] = e.mustCall("file_search", map[string]any{"pattern": "needle", "content": true})
	results["metadata"] = e.mustCall("file_metadata", map[string]any{"path": "l\nink"})
	results["copy"] = e.mustCall("file_copy", map[string]any{"from": evil, "to": evil + "2"})
	results["move"] = e.mustCall("file_move", map[string]any{"from": evil + "2", "to": evil + "3"})
	results["write"] = e.mustCall("file_write", map[string]any{"path": evil + "4", "content": "x"})
	results["edit"] = e.mustCall("file_edit", map[string]any{"path": evil + "4", "old": "x", "new": "y"})
	results["delete"] = e.mustCall("file_delete", map[string]any{"path": evil + "4"})
	results["dir"] = e.mustCall("dir_create", map[string]any{"path": "n\new"})
	_, err := e.call("file_read", map[string]any{"path": "no\nsuch"})
	results["error"] = err.Error()
	for what, out := range results {
		for _, r := range strings.TrimSuffix(out, "\n") {
			if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
				t.Errorf("%s: result carries %U raw:\n%s", what, r, out)
				break
			}
		}
		for _, line := range strings.Split(out, "\n") {
			l := strings.TrimSpace(line)
			if strings.HasPrefix(l, "fake.txt") || strings.HasPrefix(l, "forged") || strings.HasPrefix(l, "ink") ||
				strings.HasPrefix(l, "forgedtarget") || strings.HasPrefix(l, "such") || strings.HasPrefix(l, "ew") {
				t.Errorf("%s: a name forged the line %q:\n%s", what, line, out)
			}
		}
	}
	if !strings.Contains(results["tree"], `"a\nfake.txt (1 B)"`) {
		t.Errorf("tree does not show the name escaped:\n%s", results["tree"])
	}
}
