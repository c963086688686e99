//go:build linux

package events

import (
	"fmt"
	"github.com/tend-agent/tend/internal/unpriv"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watched asks the running source for its watched directories.
func (s *inotifySource) watched(t *testing.T) []string {
	t.Helper()
	reply := make(chan []string, 1)
	select {
	case s.query <- reply:
	case <-time.After(waitLimit):
		t.Fatal("the source did not answer")
	}
	return <-reply
}

// startInotify starts New on root and checks that it really uses inotify.
func startInotify(t *testing.T, opts Options) (*inotifySource, *collector) {
	t.Helper()
	src, err := New(testCtx(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(t, src)
	if src.Mode() != "inotify" || src.Reason() != "" || src.LastEventID() != 0 {
		t.Fatalf("mode %q reason %q", src.Mode(), src.Reason())
	}
	return src.(*inotifySource), c
}

func TestInotifyChanges(t *testing.T) {
	cases := []struct {
		name  string
		setup []string // files that exist before watching
		act   func(t *testing.T, root string)
		want  []string
	}{
		{"create", nil,
			func(t *testing.T, r string) { write(t, filepath.Join(r, "new.txt"), "x") },
			[]string{"new.txt"}},
		{"modify", []string{"sub/m.txt"},
			func(t *testing.T, r string) { appendTo(t, filepath.Join(r, "sub/m.txt"), "more") },
			[]string{"sub/m.txt"}},
		{"delete", []string{"sub/d.txt"},
			func(t *testing.T, r string) { os.Remove(filepath.Join(r, "sub/d.txt")) },
			[]string{"sub/d.txt"}},
		{"rename", []string{"old.txt"},
			func(t *testing.T, r string) { os.Rename(filepath.Join(r, "old.txt"), filepath.Join(r, "sub2/new.txt")) },
			[]string{"old.txt", "sub2/new.txt"}},
		{"atomic editor save", []string{"doc.md"},
			func(t *testing.T, r string) {
				write(t, filepath.Join(r, ".doc.md.tmp"), "new content")
				os.Rename(filepath.Join(r, ".doc.md.tmp"), filepath.Join(r, "doc.md"))
			},
			[]string{"doc.md", ".doc.md.tmp"}},
		{"remove a folder", []string{"dir/a.txt", "dir/in/b.txt"},
			func(t *testing.T, r string) { os.RemoveAll(filepath.Join(r, "dir")) },
			[]string{"dir", "dir/a.txt", "dir/in", "dir/in/b.txt"}},
		{"rename a folder then write inside", []string{"dir/in/b.txt"},
			func(t *testing.T, r string) {
				os.Rename(filepath.Join(r, "dir"), filepath.Join(r, "moved"))
				write(t, filepath.Join(r, "moved/in/c.txt"), "c")
			},
			[]string{"dir", "moved", "moved/in/b.txt", "moved/in/c.txt"}},
		{"folder moved in from outside", nil,
			func(t *testing.T, r string) {
				out := filepath.Join(t.TempDir(), "pkg")
				write(t, filepath.Join(out, "deep/x.txt"), "x")
				os.Rename(out, filepath.Join(r, "pkg"))
				write(t, filepath.Join(r, "pkg/deep/y.txt"), "y")
			},
			[]string{"pkg", "pkg/deep/x.txt", "pkg/deep/y.txt"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			os.Mkdir(filepath.Join(root, "sub2"), 0o755)
			for _, f := range tc.setup {
				write(t, filepath.Join(root, f), "seed")
			}
			_, c := startInotify(t, Options{Root: root, Recursive: true})
			tc.act(t, root)
			var want []string
			for _, w := range tc.want {
				want = append(want, filepath.Join(root, w))
			}
			c.paths(want...)
			if c.rescans != 0 || len(c.errs) != 0 {
				t.Errorf("unexpected rescans %d / errors %v", c.rescans, c.errs)
			}
		})
	}
}

func TestInotifyNewFolderFilledImmediately(t *testing.T) {
	root := t.TempDir()
	_, c := startInotify(t, Options{Root: root, Recursive: true})
	deep := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "a"), filepath.Join(root, "a", "b"), deep}
	for i := range 50 {
		for _, d := range []string{filepath.Join(root, "a"), filepath.Join(root, "a", "b"), deep} {
			p := filepath.Join(d, fmt.Sprintf("f%02d.txt", i))
			write(t, p, "x")
			want = append(want, p)
		}
	}
	c.paths(want...)
	if c.rescans != 0 {
		t.Errorf("got %d rescans; every file should be reported by path", c.rescans)
	}
}

func TestInotifySkip(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".git/objects", "Projects/x/src", "Projects2", "Projects/y"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	// A symlink to a folder outside: not followed.
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(root, "link"))
	src, c := startInotify(t, Options{Root: root, Recursive: true, Skip: skipGitAndNested})
	for _, d := range src.watched(t) {
		if strings.Contains(d, ".git") || strings.Contains(d, "Projects/x") || strings.Contains(d, "link") {
			t.Errorf("skipped or symlinked folder is watched: %s", d)
		}
	}
	write(t, filepath.Join(root, ".git/objects/ab"), "x")
	write(t, filepath.Join(root, ".git/HEAD"), "x")
	write(t, filepath.Join(root, "Projects/x/src/main.go"), "x")
	write(t, filepath.Join(root, "Projects/x/newdir/f"), "x")
	write(t, filepath.Join(outside, "through-link.txt"), "x")
	// Reported: events are ordered, so once these are seen the skipped
	// ones above would have been seen too.
	write(t, filepath.Join(root, "Projects2/f.txt"), "x")
	write(t, filepath.Join(root, "Projects/y/f.txt"), "x")
	c.paths(filepath.Join(root, "Projects2/f.txt"), filepath.Join(root, "Projects/y/f.txt"))
	for p := range c.seen {
		if strings.Contains(p, ".git") || strings.Contains(p, "Projects/x") || strings.Contains(p, "through-link") {
			t.Errorf("skipped path reported: %s", p)
		}
	}
}

func TestInotifyNotRecursive(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "d"), 0o755)
	_, c := startInotify(t, Options{Root: root})
	write(t, filepath.Join(root, "d/deep.txt"), "x")
	write(t, filepath.Join(root, "e/deeper.txt"), "x")
	write(t, filepath.Join(root, "top.txt"), "x")
	c.paths(filepath.Join(root, "top.txt"), filepath.Join(root, "e"))
	for _, p := range []string{"d/deep.txt", "e/deeper.txt"} {
		if c.seen[filepath.Join(root, p)] > 0 {
			t.Errorf("non-recursive source reported %s", p)
		}
	}
}

func TestInotifyInjectedOverflow(t *testing.T) {
	root := t.TempDir()
	src, c := startInotify(t, Options{Root: root, Recursive: true})
	src.inject <- fsnotify.ErrEventOverflow
	c.rescan()
	write(t, filepath.Join(root, "after.txt"), "x")
	c.paths(filepath.Join(root, "after.txt"))
	if src.Mode() != "inotify" {
		t.Errorf("mode %q after an overflow", src.Mode())
	}
}

// enospcUnder makes adding a watch fail with ENOSPC below dir.
func enospcUnder(dir string) func(string, func(string) error) error {
	return func(p string, add func(string) error) error {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			return syscall.ENOSPC
		}
		return add(p)
	}
}

func TestInotifyOutOfWatches(t *testing.T) {
	cases := []struct {
		name string
		// before starts the source; after triggers the limit once watching.
		before func(root string)
		after  func(t *testing.T, src *inotifySource, root string)
	}{
		{"at start", func(root string) { os.MkdirAll(filepath.Join(root, "big/x"), 0o755) }, nil},
		{"new folder later", nil, func(t *testing.T, src *inotifySource, root string) {
			os.MkdirAll(filepath.Join(root, "big/x"), 0o755)
		}},
		{"error from the kernel", nil, func(t *testing.T, src *inotifySource, root string) {
			src.inject <- fmt.Errorf("adding watch: %w", syscall.ENOSPC)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.before != nil {
				tc.before(root)
			}
			tk := newManualTicker()
			opts := Options{Root: root, Recursive: true, addWatch: enospcUnder(filepath.Join(root, "big")), newTicker: tk.fn}
			s, err := New(testCtx(t), opts)
			if err != nil {
				t.Fatal(err)
			}
			c := newCollector(t, s)
			if tc.after != nil {
				if s.Mode() != "inotify" {
					t.Fatalf("mode %q before the limit", s.Mode())
				}
				tc.after(t, s.(*inotifySource), root)
			}
			c.until("polling mode", func() bool { return s.Mode() == "poll" })
			c.until("a rescan", func() bool { return c.rescans >= 1 })
			if !strings.Contains(s.Reason(), "fs.inotify.max_user_watches") || !strings.Contains(s.Reason(), "ENOSPC") {
				t.Errorf("reason %q does not explain the limit", s.Reason())
			}
			write(t, filepath.Join(root, "big/x/after.txt"), "x")
			write(t, filepath.Join(root, "top.txt"), "x")
			tk.tick(t)
			c.paths(filepath.Join(root, "big/x/after.txt"), filepath.Join(root, "top.txt"))
		})
	}
}

func TestInotifyRootGoneAndBack(t *testing.T) {
	cases := []struct {
		name string
		lose func(root string) error
	}{
		{"removed", os.RemoveAll},
		{"renamed away", func(root string) error { return os.Rename(root, root+".old") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "w")
			write(t, filepath.Join(root, "sub/a.txt"), "a")
			tk := newManualTicker()
			src, c := startInotify(t, Options{Root: root, Recursive: true, newTicker: tk.fn})
			if err := tc.lose(root); err != nil {
				t.Fatal(err)
			}
			c.rootGone()
			// The old folder, wherever it went, is no longer watched.
			write(t, filepath.Join(root+".old", "sub/ghost.txt"), "x")
			write(t, filepath.Join(root, "sub/back.txt"), "b")
			tk.tick(t)
			c.rescan()
			if src.Mode() != "inotify" {
				t.Fatalf("mode %q after the root came back", src.Mode())
			}
			write(t, filepath.Join(root, "sub/later.txt"), "c")
			c.paths(filepath.Join(root, "sub/later.txt"))
			if c.seen[filepath.Join(root+".old", "sub/ghost.txt")] > 0 {
				t.Error("the renamed-away folder is still watched")
			}
		})
	}
}

func TestInotifyRootMissingAtStart(t *testing.T) {
	root := filepath.Join(t.TempDir(), "later")
	tk := newManualTicker()
	src, err := New(testCtx(t), Options{Root: root, Recursive: true, newTicker: tk.fn})
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(t, src)
	c.rootGone()
	write(t, filepath.Join(root, "x.txt"), "x")
	tk.tick(t)
	c.rescan()
	write(t, filepath.Join(root, "y.txt"), "y")
	c.paths(filepath.Join(root, "y.txt"))
}

func TestInotifyCloseEndsNotices(t *testing.T) {
	src, err := New(testCtx(t), Options{Root: t.TempDir(), Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	for range src.Notices() {
	}
}

// The permission tests need a normal user (root reads everything): run the
// compiled test binary as one, e.g. setpriv --reuid=65534 --regid=65534
// --clear-groups env TMPDIR=/tmp/x ./events.test
func TestInotifyPermissionDeniedSubfolder(t *testing.T) {
	if unpriv.Rerun(t) {
		return // ran as an unprivileged user
	}
	root := t.TempDir()
	locked := filepath.Join(root, "locked")
	write(t, filepath.Join(locked, "secret"), "x")
	os.Chmod(locked, 0)
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	src, c := startInotify(t, Options{Root: root, Recursive: true})
	write(t, filepath.Join(root, "open.txt"), "x")
	c.paths(filepath.Join(root, "open.txt"))
	for _, d := range src.watched(t) {
		if d == locked {
			t.Error("an unreadable folder is listed as watched")
		}
	}
	// Unlocked later: watched from then on, its files reported.
	os.Chmod(locked, 0o755)
	c.paths(filepath.Join(locked, "secret"))
	write(t, filepath.Join(locked, "new"), "x")
	c.paths(filepath.Join(locked, "new"))
}

func TestInotifyRootUnreadable(t *testing.T) {
	if unpriv.Rerun(t) {
		return // ran as an unprivileged user
	}
	root := t.TempDir()
	tk := newManualTicker()
	_, c := startInotify(t, Options{Root: root, Recursive: true, newTicker: tk.fn})
	os.Chmod(root, 0)
	t.Cleanup(func() { os.Chmod(root, 0o755) })
	c.rootGone()
	os.Chmod(root, 0o755)
	tk.tick(t)
	c.rescan()
	write(t, filepath.Join(root, "again.txt"), "x")
	c.paths(filepath.Join(root, "again.txt"))
}
