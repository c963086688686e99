package fingerprint

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestGraft(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "a")
	write("keep/b.txt", "b")
	write("gone/c.txt", "c")
	old := build(t, dir, Options{})
	write("a.txt", "a changed")
	write("keep/new.txt", "new")
	write("new/deep/d.txt", "d")
	write("new/deep/e.txt", "e")
	os.RemoveAll(filepath.Join(dir, "gone"))
	cur := build(t, dir, Options{})

	cases := []struct {
		name  string
		paths []string
		left  Changes // what Diff(grafted, cur) still reports
	}{
		{"nothing", nil, Diff(old, cur)},
		{"a modified file", []string{"a.txt"}, Changes{
			Added:   []string{"keep/new.txt", "new", "new/deep", "new/deep/d.txt", "new/deep/e.txt"},
			Removed: []string{"gone", "gone/c.txt"}}},
		{"a removed folder", []string{"gone"}, Changes{
			Added:    []string{"keep/new.txt", "new", "new/deep", "new/deep/d.txt", "new/deep/e.txt"},
			Modified: []string{"a.txt"}}},
		{"one file in a new folder", []string{"new/deep/d.txt"}, Changes{
			Added:    []string{"keep/new.txt", "new/deep/e.txt"},
			Removed:  []string{"gone", "gone/c.txt"},
			Modified: []string{"a.txt"}}},
		{"a new folder whole", []string{"new"}, Changes{
			Added:    []string{"keep/new.txt"},
			Removed:  []string{"gone", "gone/c.txt"},
			Modified: []string{"a.txt"}}},
		{"everything", allOf(Diff(old, cur)), Changes{}},
		{"a path neither has", []string{"nowhere/x"}, Diff(old, cur)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := old.Graft(cur, c.paths)
			got := Diff(g, cur)
			if !sameChanges(got, c.left) {
				t.Fatalf("after grafting %v, still changed:\n%+v\nwant\n%+v", c.paths, got, c.left)
			}
			// Counts stay those of a tree built from scratch.
			f, d := countNodes(&g.top)
			if gf, gd := g.Counts(); gf != f || gd != d {
				t.Fatalf("counts %d files %d dirs, want %d %d", gf, gd, f, d)
			}
			if len(c.left.Added)+len(c.left.Removed)+len(c.left.Modified) == 0 && g.RootHash() != cur.RootHash() {
				t.Fatal("fully grafted tree differs from the source")
			}
		})
	}
	// The original is untouched.
	if again := build(t, dir, Options{}); !sameChanges(Diff(old, again), Diff(old, cur)) {
		t.Fatal("graft changed its input")
	}
}

func allOf(c Changes) []string {
	return slices.Concat(c.Added, c.Removed, c.Modified)
}
