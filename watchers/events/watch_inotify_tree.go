//go:build linux

package events

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// dirNode is a watched directory; kids are the names of its watched
// subdirectories, so a removed subtree drops its watches without scanning
// every watch. A slice, not a map: most folders have a handful of
// subfolders, and a map per folder costs hundreds of bytes on a tree of
// tens of thousands of folders.
type dirNode struct {
	kids []string
}

func (n *dirNode) addKid(name string) { n.kids = append(n.kids, name) }

func (n *dirNode) dropKid(name string) {
	for i, k := range n.kids {
		if k == name {
			n.kids = append(n.kids[:i], n.kids[i+1:]...)
			return
		}
	}
}

// isLimit reports whether err means inotify ran out of watches or fds.
func isLimit(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE)
}

func (s *inotifySource) addWatch(path string) error {
	if s.opts.addWatch != nil {
		return s.opts.addWatch(path, s.w.Add)
	}
	return s.w.Add(path)
}

// addTree watches dir, then lists it, reporting its entries when report is
// set, and recurses into subdirectories (not following symlinks, honouring
// Skip). Only limit errors and problems with the root are returned; an
// unreadable subfolder is logged and skipped.
func (s *inotifySource) addTree(dir string, report bool) error {
	if err := s.addWatch(dir); err != nil {
		switch {
		case isLimit(err):
			return fmt.Errorf("watching %s: %w", dir, err)
		case dir == s.opts.Root:
			return &RootError{Root: dir, Err: err}
		case errors.Is(err, fs.ErrNotExist):
			return nil // gone again; its parent reports the removal
		default:
			s.opts.Logger.Warn("skipping a folder that cannot be watched", "path", dir, "err", err)
			return nil
		}
	}
	s.track(dir)
	if dir != s.opts.Root && !s.opts.Recursive {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if dir == s.opts.Root {
			return &RootError{Root: dir, Err: err}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			s.opts.Logger.Warn("skipping a folder that cannot be read", "path", dir, "err", err)
		}
		return nil
	}
	for _, e := range entries {
		p := join(dir, e.Name())
		isDir := e.IsDir() // a symlink is never a dir here: not followed
		if s.opts.skipped(p, isDir) {
			continue
		}
		if report {
			s.b.add(p)
		}
		if isDir && s.opts.Recursive {
			if err := s.addTree(p, report); err != nil {
				return err
			}
		}
	}
	return nil
}

// track records a watched directory under its parent.
func (s *inotifySource) track(dir string) {
	if _, ok := s.dirs[dir]; ok {
		return // already known, and so already one of its parent's kids
	}
	s.dirs[dir] = &dirNode{}
	if dir == s.opts.Root {
		return
	}
	if parent, ok := s.dirs[filepath.Dir(dir)]; ok {
		parent.addKid(filepath.Base(dir))
	}
}

// dropTree forgets dir and every watched directory below it, removing their
// kernel watches (a renamed-away subtree keeps them otherwise).
func (s *inotifySource) dropTree(dir string) {
	n, ok := s.dirs[dir]
	if !ok {
		return
	}
	for _, k := range append([]string(nil), n.kids...) {
		s.dropTree(join(dir, k))
	}
	delete(s.dirs, dir)
	_ = s.w.Remove(dir) // already gone when the folder was deleted
	if parent, ok := s.dirs[filepath.Dir(dir)]; ok {
		parent.dropKid(filepath.Base(dir))
	}
}
