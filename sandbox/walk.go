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
	start, err := b.listedReal(fd, rel)
	if err != nil {
		return err
	}
	stop := false
	var rec func(dirfd int, dir, real string, depth int) error
	rec = func(dirfd int, dir, real string, depth int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		names, err := readNames(dirfd, ".")
		if err != nil {
			return nil // unreadable folder: skipped
		}
		for _, name := range names {
			if b.fs.hidden(real, name) {
				continue
			}
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
				err = rec(cfd, e.rel, joinRel(real, name), depth+1)
				unix.Close(cfd)
				if err != nil || stop {
					return err
				}
			}
		}
		return nil
	}
	return rec(fd, rel, start, 0)
}

// listedReal is the real relative path of a folder opened for listing,
// needed only to leave tend's own files out.
func (b *Box) listedReal(fd int, rel string) (string, error) {
	if len(b.fs.deny) == 0 {
		return "", nil
	}
	real, err := b.fs.realRel(fd)
	if err != nil {
		return "", describeErr(rel, err)
	}
	return real, nil
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
