package fingerprint

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIgnoreRules(t *testing.T) {
	files := []string{
		"a.txt", ".hidden", ".config/x", ".git/HEAD", ".git/objects/ab",
		"note.txt.swp", "note.txt.swx", "note.txt~", ".#note.txt", "4913", ".DS_Store",
		"app.log", "logs/keep.log", "logs/other.log", "build/out.bin", "src/build",
		"top.tmp", "src/top.tmp", "docs/a.md", "docs/deep/b.md", "docs/deep/c.txt",
		"cache/x/tmp/y", "tmp/z",
	}
	always := []string{"4913", ".DS_Store", ".#note.txt", ".git", ".git/HEAD", ".git/objects", ".git/objects/ab",
		"note.txt.swp", "note.txt.swx", "note.txt~"}
	hidden := []string{".config", ".config/x", ".hidden"}
	cases := []struct {
		name       string
		opts       Options
		tendignore string
		absent     []string // left out besides the built-in and hidden ones
	}{
		{"defaults", Options{}, "", nil},
		{"include hidden keeps .git and swap files out", Options{IncludeHidden: true}, "", nil},
		{"negation cannot bring back .git", Options{IncludeHidden: true, Ignore: []string{"!.git"}}, "", nil},
		{"star pattern", Options{Ignore: []string{"*.log"}}, "", []string{"app.log", "logs/keep.log", "logs/other.log"}},
		{"negation", Options{Ignore: []string{"*.log", "!keep.log"}}, "", []string{"app.log", "logs/other.log"}},
		{"dir only", Options{Ignore: []string{"build/"}}, "", []string{"build", "build/out.bin"}},
		{"anchored", Options{Ignore: []string{"/top.tmp"}}, "", []string{"top.tmp"}},
		{"unanchored", Options{Ignore: []string{"top.tmp"}}, "", []string{"top.tmp", "src/top.tmp"}},
		{"double star middle", Options{Ignore: []string{"docs/**/*.md"}}, "", []string{"docs/a.md", "docs/deep/b.md"}},
		{"double star leading", Options{Ignore: []string{"**/tmp"}}, "", []string{"cache/x/tmp", "cache/x/tmp/y", "tmp", "tmp/z"}},
		{"double star trailing", Options{Ignore: []string{"docs/**"}}, "", []string{"docs/a.md", "docs/deep", "docs/deep/b.md", "docs/deep/c.txt"}},
		{"tendignore", Options{}, "# comment\n\n*.log\n!keep.log\ncache/\n", []string{"app.log", "logs/other.log", "cache", "cache/x", "cache/x/tmp", "cache/x/tmp/y"}},
		{"question mark", Options{Ignore: []string{"?.txt"}}, "", []string{"a.txt", "docs/deep/c.txt"}},
		{"character class", Options{Ignore: []string{"[ab].*"}}, "", []string{"a.txt", "docs/a.md", "docs/deep/b.md"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, files...)
			if c.tendignore != "" {
				if err := os.WriteFile(filepath.Join(root, TendIgnoreFile), []byte(c.tendignore), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tr := build(t, root, c.opts)
			present := map[string]bool{}
			for _, p := range paths(tr) {
				present[p] = true
			}
			absent := map[string]bool{}
			for _, p := range c.absent {
				absent[p] = true
			}
			for _, p := range always {
				absent[p] = true
			}
			for _, p := range hidden {
				absent[p] = !c.opts.IncludeHidden
			}
			all := allPaths(files)
			if c.tendignore != "" && c.opts.IncludeHidden {
				all = append(all, TendIgnoreFile)
			}
			for _, p := range all {
				if present[p] == absent[p] {
					t.Errorf("%s: present=%v, want present=%v", p, present[p], !absent[p])
				}
				isDir := false
				if e, ok := tr.Lookup(p); ok {
					isDir = e.Kind == KindDir
				} else if fi, err := os.Lstat(filepath.Join(root, p)); err == nil {
					isDir = fi.IsDir()
				}
				if got := tr.Ignored(p, isDir); got != absent[p] {
					t.Errorf("Ignored(%q) = %v, but the walk left it out: %v", p, got, absent[p])
				}
			}
		})
	}
}

// allPaths lists the files and every parent directory of them.
func allPaths(files []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		for p := f; p != "." && p != ""; p = filepath.Dir(p) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

func TestExcludeBoundary(t *testing.T) {
	root := t.TempDir()
	write(t, root, "Projects/x/a", "Projects/y", "Projects2/b", "ProjectsX", "other/Projects/c")
	for _, c := range []struct {
		name    string
		exclude []string
		absent  []string
	}{
		{"subtree", []string{"Projects"}, []string{"Projects", "Projects/x", "Projects/x/a", "Projects/y"}},
		{"nested", []string{"Projects/x"}, []string{"Projects/x", "Projects/x/a"}},
		{"absolute", []string{filepath.Join(root, "Projects/x")}, []string{"Projects/x", "Projects/x/a"}},
		{"trailing slash", []string{"Projects/"}, []string{"Projects", "Projects/x", "Projects/x/a", "Projects/y"}},
		{"outside", []string{"/elsewhere"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := build(t, root, Options{Exclude: c.exclude})
			absent := map[string]bool{}
			for _, p := range c.absent {
				absent[p] = true
			}
			for _, p := range allPaths([]string{"Projects/x/a", "Projects/y", "Projects2/b", "ProjectsX", "other/Projects/c"}) {
				_, ok := tr.Lookup(p)
				if ok == absent[p] {
					t.Errorf("%s: in tree=%v, want %v", p, ok, !absent[p])
				}
				if tr.Ignored(p, false) != absent[p] {
					t.Errorf("Ignored(%q) = %v, want %v", p, !absent[p], absent[p])
				}
			}
			if up, err := tr.Update("Projects/x/new"); err != nil || up.RootHash() != tr.RootHash() && absent["Projects/x"] {
				t.Errorf("an update inside an excluded subtree changed the tree (err %v)", err)
			}
		})
	}
	if _, err := Build(t.Context(), root, Options{Exclude: []string{"../up"}}); err == nil {
		t.Error("an exclude that climbs out of the folder was accepted")
	}
}

func TestValidatePattern(t *testing.T) {
	for _, c := range []struct {
		p  string
		ok bool
	}{{"*.log", true}, {"dir/", true}, {"/a/**/b", true}, {"!x", true}, {"[abc].txt", true}, {"[unclosed", false}, {"a/[b", false},
		{"[!a]", true}, {"[]a]", true}, {"[[:alpha:]]", true}, {"[[:nope:]]", false}, {`a\`, false}, {`a\\`, true}, {"# [comment", true}} {
		if err := ValidatePattern(c.p); (err == nil) != c.ok {
			t.Errorf("ValidatePattern(%q) = %v, want ok=%v", c.p, err, c.ok)
		}
	}
}

func TestMatcherAgreesWithTree(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, TendIgnoreFile), []byte("*.tmp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{Ignore: []string{"build/"}, Exclude: []string{"Projects"}}
	tr := build(t, root, opts)
	m := NewMatcher(root, opts)
	for _, c := range []struct {
		p     string
		isDir bool
	}{{"a.tmp", false}, {"build", true}, {"build", false}, {"Projects/x", false}, {"Projects2/x", false}, {".hidden", false}, {"ok.txt", false}, {"x/.git/y", false}} {
		if m.Ignored(c.p, c.isDir) != tr.Ignored(c.p, c.isDir) {
			t.Errorf("Matcher.Ignored(%q, %v) = %v, tree says %v", c.p, c.isDir, m.Ignored(c.p, c.isDir), tr.Ignored(c.p, c.isDir))
		}
	}
	// Bad patterns: exclusions and built-in rules still hold.
	bad := NewMatcher(root, Options{Ignore: []string{"[bad"}, Exclude: []string{"Projects"}})
	if !bad.Ignored("Projects/x", false) || !bad.Ignored(".git", true) || bad.Ignored("ok.txt", false) {
		t.Error("a matcher with a malformed pattern lost its exclusions or built-in rules")
	}
	badFlat := NewMatcher(root, Options{Ignore: []string{"[bad"}, NonRecursive: true})
	if !badFlat.Ignored("sub/x", false) || !badFlat.Ignored("a.tmp", false) {
		t.Error("a matcher with a malformed pattern lost .tendignore or the non-recursive setting")
	}
}
