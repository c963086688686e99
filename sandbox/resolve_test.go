package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestResolvers checks that the openat2 resolver and the portable
// component walk agree on what stays inside.
func TestResolvers(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	write(t, filepath.Join(root, "d", "e", "f.txt"), "f")
	write(t, filepath.Join(base, "out.txt"), "out")
	links := map[string]string{
		"d/up":       "..",              // the root: inside
		"d/e/chain":  "../up/d/e/f.txt", // a chain of links that stays inside
		"d/esc":      "../..",           // above the root
		"d/abs":      root,              // absolute, even though inside: refused like RESOLVE_BENEATH
		"d/loop":     "loop",
		"d/dangling": "nothing",
	}
	for p, target := range links {
		if err := os.Symlink(target, filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		rel   string
		flags int
		want  error // nil: opens
	}{
		{"d/e/f.txt", unix.O_RDONLY, nil},
		{"d/up/d/e/f.txt", unix.O_RDONLY, nil},
		{"d/e/chain", unix.O_RDONLY, nil},
		{"d/e/../e/f.txt", unix.O_RDONLY, nil},
		{"d/esc/out.txt", unix.O_RDONLY, unix.EXDEV},
		{"d/../../out.txt", unix.O_RDONLY, unix.EXDEV},
		{"d/abs/d/e/f.txt", unix.O_RDONLY, unix.EXDEV},
		{"d/loop", unix.O_RDONLY, unix.ELOOP},
		{"d/dangling", unix.O_RDONLY, unix.ENOENT},
		{"d/missing/x", unix.O_RDONLY, unix.ENOENT},
		{"d/e/f.txt/x", unix.O_RDONLY, unix.ENOTDIR},
		{"d/esc", oPath | unix.O_NOFOLLOW, nil}, // the link itself
		{"", oPath | unix.O_DIRECTORY, nil},
	}
	for _, walkMode := range []bool{false, true} {
		r, err := openRoot(root)
		if err != nil {
			t.Fatal(err)
		}
		r.forceWalk = walkMode
		for _, c := range cases {
			fd, err := r.open(c.rel, c.flags, 0)
			if err == nil {
				unix.Close(fd)
			}
			if (c.want == nil) != (err == nil) || (c.want != nil && !errors.Is(err, c.want)) {
				t.Errorf("walk=%v open(%q): got %v, want %v", walkMode, c.rel, err, c.want)
			}
		}
		r.close()
	}
}
