package fingerprint

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestDiff(t *testing.T) {
	initial := []string{"a.txt", "b.txt", "docs/readme.md", "docs/old/x.md", "keep/k.txt"}
	cases := []struct {
		name   string
		change func(t *testing.T, root string)
		want   Changes
	}{
		{"nothing", func(t *testing.T, root string) {}, Changes{}},
		{"add file", func(t *testing.T, root string) { write(t, root, "c.txt") },
			Changes{Added: []string{"c.txt"}}},
		{"remove file", func(t *testing.T, root string) { rm(t, root, "a.txt") },
			Changes{Removed: []string{"a.txt"}}},
		{"modify mtime", func(t *testing.T, root string) { touch(t, root, "docs/readme.md", 99) },
			Changes{Modified: []string{"docs/readme.md"}}},
		{"modify size", func(t *testing.T, root string) {
			if err := os.WriteFile(filepath.Join(root, "b.txt"), []byte("longer content now"), 0o644); err != nil {
				t.Fatal(err)
			}
			touch(t, root, "b.txt", 1)
		}, Changes{Modified: []string{"b.txt"}}},
		{"rename", func(t *testing.T, root string) { mv(t, root, "a.txt", "docs/a.txt") },
			Changes{Added: []string{"docs/a.txt"}, Removed: []string{"a.txt"}}},
		{"dir add", func(t *testing.T, root string) { write(t, root, "new/one.txt", "new/sub/two.txt") },
			Changes{Added: []string{"new", "new/one.txt", "new/sub", "new/sub/two.txt"}}},
		{"dir remove", func(t *testing.T, root string) { rm(t, root, "docs") },
			Changes{Removed: []string{"docs", "docs/old", "docs/old/x.md", "docs/readme.md"}}},
		{"dir rename", func(t *testing.T, root string) { mv(t, root, "docs/old", "archive") },
			Changes{Added: []string{"archive", "archive/x.md"}, Removed: []string{"docs/old", "docs/old/x.md"}}},
		{"file becomes dir", func(t *testing.T, root string) { rm(t, root, "b.txt"); write(t, root, "b.txt/inner") },
			Changes{Added: []string{"b.txt", "b.txt/inner"}, Removed: []string{"b.txt"}}},
		{"dir becomes file", func(t *testing.T, root string) { rm(t, root, "keep"); write(t, root, "keep") },
			Changes{Added: []string{"keep"}, Removed: []string{"keep", "keep/k.txt"}}},
		{"dir mtime only", func(t *testing.T, root string) { touch(t, root, "docs", 5) }, Changes{}},
		{"file becomes symlink", func(t *testing.T, root string) {
			rm(t, root, "a.txt")
			if err := os.Symlink("b.txt", filepath.Join(root, "a.txt")); err != nil {
				t.Fatal(err)
			}
		}, Changes{Added: []string{"a.txt"}, Removed: []string{"a.txt"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, initial...)
			for i, p := range initial {
				touch(t, root, p, i)
			}
			old := build(t, root, Options{})
			c.change(t, root)
			nw := build(t, root, Options{})
			got := Diff(old, nw)
			if !sameChanges(got, c.want) {
				t.Errorf("Diff = %+v\nwant   %+v", got, c.want)
			}
			if got.Empty() != (c.want.Len() == 0) || got.Len() != c.want.Len() {
				t.Errorf("Empty()=%v Len()=%d for %+v", got.Empty(), got.Len(), got)
			}
			// The same change seen through Update of the touched top-level
			// entries gives the same diff.
			up := old
			for _, p := range append(paths(old), paths(nw)...) {
				var err error
				if up, err = up.Update(p); err != nil {
					t.Fatal(err)
				}
			}
			if up.RootHash() != nw.RootHash() {
				t.Errorf("updated tree differs from a fresh build: %+v", Diff(up, nw))
			}
		})
	}
}

func TestDiffNil(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a", "d/b")
	tr := build(t, root, Options{})
	if got := Diff(nil, tr); !reflect.DeepEqual(got.Added, []string{"a", "d", "d/b"}) || len(got.Removed)+len(got.Modified) != 0 {
		t.Errorf("Diff(nil, t) = %+v", got)
	}
	if got := Diff(tr, nil); !reflect.DeepEqual(got.Removed, []string{"a", "d", "d/b"}) {
		t.Errorf("Diff(t, nil) = %+v", got)
	}
	if !Diff(tr, tr).Empty() {
		t.Error("Diff of a tree with itself is not empty")
	}
}

func TestDiffSorted(t *testing.T) {
	root := t.TempDir()
	old := build(t, root, Options{})
	write(t, root, "a/b", "a.txt", "a-c", "Z")
	got := Diff(old, build(t, root, Options{}))
	want := []string{"Z", "a", "a-c", "a.txt", "a/b"}
	if !reflect.DeepEqual(got.Added, want) {
		t.Errorf("Added = %v, want sorted %v", got.Added, want)
	}
}

func rm(t *testing.T, root, rel string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
}

func mv(t *testing.T, root, from, to string) {
	t.Helper()
	if err := os.Rename(filepath.Join(root, filepath.FromSlash(from)), filepath.Join(root, filepath.FromSlash(to))); err != nil {
		t.Fatal(err)
	}
}

func sameChanges(a, b Changes) bool {
	return sameStrings(a.Added, b.Added) && sameStrings(a.Removed, b.Removed) && sameStrings(a.Modified, b.Modified)
}
