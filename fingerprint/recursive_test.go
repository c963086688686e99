package fingerprint

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A non-recursive tree holds the root's own entries only, through Build,
// Update and Save/Load, so its diffs list what a non-recursive watch
// reports.
func TestNonRecursiveTree(t *testing.T) {
	root := t.TempDir()
	write(t, root, "top.txt", "sub/inner.txt", "sub/deep/x.txt", "empty/")
	opts := Options{NonRecursive: true}
	tr := build(t, root, opts)
	if got, want := paths(tr), []string{"empty", "sub", "top.txt"}; !slices.Equal(got, want) {
		t.Fatalf("non-recursive tree holds %q, want %q", got, want)
	}
	if f, d := tr.Counts(); f != 1 || d != 2 {
		t.Errorf("counts %d files, %d dirs; want 1, 2", f, d)
	}
	if !tr.Ignored("sub/inner.txt", false) || tr.Ignored("sub", true) {
		t.Error("Ignored does not say that only the root's own entries count")
	}

	// Changes inside a subfolder do not change the tree.
	write(t, root, "sub/new.txt", "sub/deep/y.txt")
	touch(t, root, "sub/inner.txt", 7)
	up, err := tr.UpdatePaths([]string{"sub/new.txt", "sub/deep/y.txt", "sub/inner.txt", "sub"})
	if err != nil {
		t.Fatal(err)
	}
	if ch := Diff(tr, up); !ch.Empty() {
		t.Errorf("changes inside a subfolder show in a non-recursive tree: %+v", ch)
	}
	if again := build(t, root, opts); again.RootHash() != tr.RootHash() {
		t.Errorf("a fresh build sees the subfolder changes: %+v", Diff(tr, again))
	}
	// A new subfolder is one entry, however full.
	write(t, root, "fresh/a.txt", "fresh/b/c.txt")
	up, err = up.Update("fresh")
	if err != nil {
		t.Fatal(err)
	}
	if ch := Diff(tr, up); !slices.Equal(ch.Added, []string{"fresh"}) || len(ch.Removed)+len(ch.Modified) != 0 {
		t.Errorf("a new subfolder gives %+v, want only fresh added", ch)
	}
	if full := build(t, root, opts); full.RootHash() != up.RootHash() {
		t.Errorf("updated and rebuilt trees differ: %+v", Diff(full, up))
	}

	p := filepath.Join(t.TempDir(), "tree")
	if err := up.Save(p); err != nil {
		t.Fatal(err)
	}
	got, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Options().NonRecursive {
		t.Fatal("Save/Load lost NonRecursive")
	}
	write(t, root, "fresh/late.txt")
	if up2, err := got.Update("fresh/late.txt"); err != nil || up2.RootHash() != got.RootHash() {
		t.Errorf("a loaded non-recursive tree took in a file inside a subfolder (err %v)", err)
	}
	if err := os.RemoveAll(filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	up3, err := got.Update("sub")
	if err != nil {
		t.Fatal(err)
	}
	if ch := Diff(got, up3); !slices.Equal(ch.Removed, []string{"sub"}) || len(ch.Added)+len(ch.Modified) != 0 {
		t.Errorf("removing a subfolder gives %+v, want only sub removed", ch)
	}
	// A recursive tree of the same folder is not mistaken for it.
	if rec := build(t, root, Options{}); rec.Options().NonRecursive {
		t.Error("a default tree says it is non-recursive")
	}
}
