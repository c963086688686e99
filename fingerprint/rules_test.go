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
