package events

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPollDetectsChanges(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "keep.txt"), "a")
	write(t, filepath.Join(root, "gone.txt"), "a")
	write(t, filepath.Join(root, "sub", "mod.txt"), "a")
	tk := newManualTicker()
	src, err := NewPoll(testCtx(t), Options{Root: root, Recursive: true, Skip: skipGitAndNested, newTicker: tk.fn})
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(t, src)
	if src.Mode() != "poll" || src.LastEventID() != 0 {
		t.Fatalf("mode %q id %d", src.Mode(), src.LastEventID())
	}
	c.rescan() // poll start

	steps := []struct {
		name string
		act  func()
		want []string
	}{
		{"create", func() { write(t, filepath.Join(root, "new", "f.txt"), "x") },
			[]string{filepath.Join(root, "new"), filepath.Join(root, "new", "f.txt")}},
		{"modify", func() { appendTo(t, filepath.Join(root, "sub", "mod.txt"), "more") },
			[]string{filepath.Join(root, "sub", "mod.txt")}},
		{"delete", func() { os.Remove(filepath.Join(root, "gone.txt")) },
			[]string{filepath.Join(root, "gone.txt")}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			c.reset()
			s.act()
			write(t, filepath.Join(root, ".git", "index"), s.name)
			tk.tick(t)
			c.paths(s.want...)
			if c.seen[filepath.Join(root, "keep.txt")] > 0 {
				t.Error("unchanged file reported")
			}
			for p := range c.seen {
				if strings.Contains(p, ".git") {
					t.Errorf("skipped path reported: %s", p)
				}
			}
		})
	}
}

func TestPollRootGoneAndBack(t *testing.T) {
	root := filepath.Join(t.TempDir(), "w")
	write(t, filepath.Join(root, "a.txt"), "a")
	tk := newManualTicker()
	src, err := NewPoll(testCtx(t), Options{Root: root, Recursive: true, newTicker: tk.fn})
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(t, src)
	c.rescan()
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	tk.tick(t)
	c.rootGone()
	write(t, filepath.Join(root, "b.txt"), "b")
	tk.tick(t)
	c.rescan()
	c.reset()
	write(t, filepath.Join(root, "c.txt"), "c")
	tk.tick(t)
	c.paths(filepath.Join(root, "c.txt"))
	if c.seen[filepath.Join(root, "b.txt")] > 0 {
		t.Error("the new baseline after the root came back reported an old file")
	}
}

func TestPollNotRecursive(t *testing.T) {
	root := t.TempDir()
	tk := newManualTicker()
	src, err := NewPoll(testCtx(t), Options{Root: root, newTicker: tk.fn})
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(t, src)
	c.rescan()
	write(t, filepath.Join(root, "d", "deep.txt"), "x")
	write(t, filepath.Join(root, "top.txt"), "x")
	tk.tick(t)
	c.paths(filepath.Join(root, "d"), filepath.Join(root, "top.txt"))
	if c.seen[filepath.Join(root, "d", "deep.txt")] > 0 {
		t.Error("a nested file was reported by a non-recursive source")
	}
}

func TestOptionsValidation(t *testing.T) {
	for _, root := range []string{"", "relative/dir"} {
		if _, err := NewPoll(testCtx(t), Options{Root: root}); err == nil {
			t.Errorf("root %q accepted", root)
		}
		if _, err := New(testCtx(t), Options{Root: root}); err == nil {
			t.Errorf("New accepted root %q", root)
		}
	}
}
