//go:build unix

package sandbox

import (
	"context"
	"errors"

	"golang.org/x/sys/unix"
)

// walkEntry is one entry met by a walk.
type walkEntry struct {
	rel    string // relative to the watched folder
	name   string
	meta   Meta
	target string // for links
	err    error
}

func statEntry(dirfd int, name string) walkEntry {
	e := walkEntry{name: name}
	e.meta, e.err = metaAt(dirfd, name, false)
	if e.meta.Kind == "symlink" {
		e.target, _ = readlinkAt(dirfd, name)
	}
	return e
}

// walk visits the entries below the folder rel, depth-first in name order,
// up to maxDepth levels (0: unlimited), never following links. visit
// returns false to stop.
func (b *Box) walk(ctx context.Context, rel string, maxDepth int, visit func(walkEntry) bool) error {
	fd, err := b.openListable(rel)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	stop := false
	var rec func(dirfd int, dir string, depth int) error
	rec = func(dirfd int, dir string, depth int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		names, err := readNames(dirfd, ".")
		if err != nil {
			return nil // unreadable folder: skipped
		}
		for _, name := range names {
			e := statEntry(dirfd, name)
			e.rel = joinRel(dir, name)
			if !visit(e) {
				stop = true
				return nil
			}
			if e.meta.Kind == "dir" && (maxDepth == 0 || depth+1 < maxDepth) {
				cfd, err := openDirAt(dirfd, name)
				if err != nil {
					continue
				}
				err = rec(cfd, e.rel, depth+1)
				unix.Close(cfd)
				if err != nil || stop {
					return err
				}
			}
		}
		return nil
	}
	return rec(fd, rel, 0)
}

// openListable opens the folder rel for listing, explaining a file given
// where a folder is needed.
func (b *Box) openListable(rel string) (int, error) {
	fd, err := b.fs.open(rel, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if errors.Is(err, unix.ENOTDIR) {
		if m, merr := metaRel(b.fs, rel, false); merr == nil && m.Exists && m.Kind != "dir" {
			return -1, toolErrf("%q is a %s, not a folder; use file_read or file_metadata on it", dotted(rel), kindName(m.Kind))
		}
	}
	if err != nil {
		return -1, describeErr(rel, err)
	}
	return fd, nil
}
