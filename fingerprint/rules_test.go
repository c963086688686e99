package fingerprint

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Diff between trees built under different rules lists only paths that
// neither set of rules leaves out: a new .tendignore does not turn what it
// ignores into removals, and dropping it does not turn what was there into
// additions. Real changes still show.
func TestDiffAcrossRuleChanges(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.txt", "keep.txt", "x.log", "build/o.bin", ".hidden")
	before := build(t, root, Options{})

	if err := os.WriteFile(filepath.Join(root, TendIgnoreFile), []byte("*.log\nbuild/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	touch(t, root, "a.txt", 3)
	touch(t, root, "x.log", 4)
	write(t, root, "y.log", "new.txt", "build/p.bin")
	after := build(t, root, Options{})
	want := Changes{Added: []string{"new.txt"}, Modified: []string{"a.txt"}}
	if got := Diff(before, after); !sameChanges(got, want) {
		t.Errorf("after a new .tendignore: %+v, want %+v", got, want)
	}
	// The same through a saved baseline, as after a restart.
	p := filepath.Join(t.TempDir(), "tree")
	if err := before.Save(p); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := Diff(loaded, after); !sameChanges(got, want) {
		t.Errorf("from a saved baseline: %+v, want %+v", got, want)
	}
	// The same again when the live tree took the rules by Update.
	if up, err := before.UpdatePaths([]string{TendIgnoreFile}); err != nil {
		t.Fatal(err)
	} else if got := Diff(before, up); !sameChanges(got, want) {
		t.Errorf("after Update of .tendignore: %+v, want %+v", got, want)
	}

	// Un-ignoring: what was there is not news.
	if err := os.Remove(filepath.Join(root, TendIgnoreFile)); err != nil {
		t.Fatal(err)
	}
	touch(t, root, "keep.txt", 9)
	again := build(t, root, Options{})
	want = Changes{Modified: []string{"keep.txt"}}
	if got := Diff(after, again); !sameChanges(got, want) {
		t.Errorf("after removing .tendignore: %+v, want %+v", got, want)
	}
	// Other options changing: hidden entries let in are not added.
	withHidden := build(t, root, Options{IncludeHidden: true})
	if got := Diff(again, withHidden); !got.Empty() {
		t.Errorf("letting hidden entries in lists %+v, want nothing", got)
	}
	// Under the same rules nothing is filtered: a removal is a removal.
	if err := os.Remove(filepath.Join(root, "x.log")); err != nil {
		t.Fatal(err)
	}
	if got := Diff(again, build(t, root, Options{})); !slices.Equal(got.Removed, []string{"x.log"}) {
		t.Errorf("removing x.log under unchanged rules: %+v", got)
	}
}

// The .tendignore file is always reported to an event source, hidden or
// ignored: a change to it changes the rules.
func TestMatcherReportsTendignore(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, TendIgnoreFile), []byte(".*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{}, {IncludeHidden: true}} {
		m := NewMatcher(root, opts)
		if m.Ignored(TendIgnoreFile, false) {
			t.Errorf("with %+v the event source would not hear of .tendignore changing", opts)
		}
		if !m.Ignored(".other", false) {
			t.Errorf("with %+v, .other is not ignored", opts)
		}
		if tr := build(t, root, opts); !tr.Ignored(TendIgnoreFile, false) {
			t.Errorf("with %+v the tree says it holds .tendignore", opts)
		}
	}
}

// Rebase gives a baseline under the new rules with the same news as the
// rule-aware Diff, after which changes to what the new rules let in are
// news like any other.
func TestRebaseUnderNewRules(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.txt", "keep.txt", "gone.txt", "x.log", "build/o.bin", "d/in.txt", "d/in.log", "sub/s.txt")
	before := build(t, root, Options{Ignore: []string{"*.log"}})

	if err := os.WriteFile(filepath.Join(root, TendIgnoreFile), []byte("build/\n!*.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	touch(t, root, "a.txt", 3)
	if err := os.Remove(filepath.Join(root, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	write(t, root, "new.txt", "fresh/f.txt", "fresh/f.log")
	after := build(t, root, Options{Ignore: []string{"*.log"}})

	want := Diff(before, after) // rule-aware
	if !sameChanges(want, Changes{
		Added:    []string{"fresh", "fresh/f.txt", "new.txt"},
		Removed:  []string{"d", "d/in.txt", "gone.txt"},
		Modified: []string{"a.txt"},
	}) {
		t.Fatalf("rule-aware diff: %+v", want)
	}
	rb := before.Rebase(after)
	got := Diff(rb, after)
	// A folder new under both rules is news whole, even the file the old
	// rules left out.
	want.Added = append(want.Added, "fresh/f.log")
	if !sameChanges(got, Changes{Added: []string{"fresh", "fresh/f.log", "fresh/f.txt", "new.txt"}, Removed: want.Removed, Modified: want.Modified}) {
		t.Errorf("diff from the rebased baseline: %+v", got)
	}
	if !rb.match.sameRules(after.match) {
		t.Error("the rebased baseline does not carry the new rules")
	}
	if f, d := countNodes(&rb.top); f != rb.files || d != rb.dirs {
		t.Errorf("rebased counts %d/%d, its nodes %d/%d", rb.files, rb.dirs, f, d)
	}
	// x.log, let in by the new rules, is in the baseline: a change to it
	// is a modification.
	touch(t, root, "x.log", 8)
	later := build(t, root, Options{Ignore: []string{"*.log"}})
	if ch := Diff(rb, later); !slices.Contains(ch.Modified, "x.log") {
		t.Errorf("after the rebase a change to x.log gives %+v", ch)
	}
	if rb2 := rb.Rebase(later); rb2 != rb {
		t.Error("Rebase under the same rules made a new tree")
	}
	// Back to the old rules: what they ignore again goes, without a
	// removal.
	back := before.Rebase(before)
	if back != before {
		t.Error("Rebase of a tree onto itself made a new tree")
	}
	if err := os.Remove(filepath.Join(root, TendIgnoreFile)); err != nil {
		t.Fatal(err)
	}
	plain := build(t, root, Options{Ignore: []string{"*.log"}})
	if ch := Diff(rb.Rebase(plain), plain); !sameChanges(ch, Changes{Added: []string{"fresh", "fresh/f.txt", "new.txt"}, Removed: []string{"d", "d/in.txt", "gone.txt"}, Modified: []string{"a.txt"}}) {
		t.Errorf("rebased back to the old rules: %+v", ch)
	}
}
