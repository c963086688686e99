package fingerprint

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// write creates files (path → content); a path ending in "/" is a directory.
func write(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if f[len(f)-1] == '/' {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("content of "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// touch sets a path's mtime to a fixed offset from a base, so a change is
// seen whatever the file system's timestamp granularity.
func touch(t *testing.T, root, rel string, offset int) {
	t.Helper()
	mt := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(offset) * time.Second)
	if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(rel)), mt, mt); err != nil {
		t.Fatal(err)
	}
}

func build(t *testing.T, root string, opts Options) *Tree {
	t.Helper()
	tr, err := Build(context.Background(), root, opts)
	if err != nil {
		t.Fatalf("Build(%s): %v", root, err)
	}
	return tr
}

// paths lists every entry of a tree.
func paths(tr *Tree) []string {
	var out []string
	tr.Walk(func(e Entry) bool {
		out = append(out, e.Path)
		return true
	})
	slices.Sort(out)
	return out
}

func sameStrings(a, b []string) bool {
	return slices.Equal(a, b) || (len(a) == 0 && len(b) == 0)
}
