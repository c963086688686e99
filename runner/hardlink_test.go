package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tend-agent/tend/dispatch/modeltest"
)

// TestAllowHardLinksReachesTheTools checks that the watcher's
// allowHardLinks decides whether the model may read a hard-linked file.
func TestAllowHardLinksReachesTheTools(t *testing.T) {
	for _, allow := range []bool{false, true} {
		var mu sync.Mutex
		var result string
		script := func(r modeltest.Request) modeltest.Response {
			mu.Lock()
			defer mu.Unlock()
			if last := r.Last(); last.Role == "tool" {
				result = last.Content
				return modeltest.Text("Done.")
			}
			return modeltest.Calls(modeltest.Call("file_read", `{"path":"link.txt"}`))
		}
		f := newFixture(t, script)
		f.def.AllowHardLinks = allow
		outside := filepath.Join(t.TempDir(), "secret.txt")
		if err := os.WriteFile(outside, []byte("outside content"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(outside, filepath.Join(f.def.Path, "link.txt")); err != nil {
			t.Fatal(err)
		}
		f.run(t, "20260302T090000Z-0000000b")
		mu.Lock()
		got := result
		mu.Unlock()
		if allow != strings.Contains(got, "outside content") || allow == strings.Contains(got, "allowHardLinks") {
			t.Fatalf("allowHardLinks %v: the model saw %q", allow, got)
		}
	}
}
