//go:build unix

// Package beneath opens a file inside a folder the model can write, without
// ever following a symbolic link and without leaving the folder: the one
// resolver for tend's own reads of such files (the tailed log). The file
// tools have their own, which follows links that stay inside (sandbox).
package beneath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// ErrLink is returned when a component of the path is a symbolic link.
var ErrLink = errors.New("a symbolic link is in the way")

var forceWalk atomic.Bool

// ForceWalk makes Open use the portable component walk even where the
// kernel resolves beneath itself, for the rest of the test.
func ForceWalk(t testing.TB, on bool) {
	old := forceWalk.Load()
	forceWalk.Store(on)
	t.Cleanup(func() { forceWalk.Store(old) })
}

// Open opens the file at path, which must lie inside root, read-only and
// without following any symbolic link on the way from root: a link gives
// ErrLink, a missing file an error satisfying errors.Is(err, os.ErrNotExist).
func Open(root, path string) (*os.File, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, fmt.Errorf("%s is not inside %s", path, root)
	}
	rootfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(rootfd)
	fd, err := openBeneath(rootfd, filepath.ToSlash(rel))
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("%s: %w", path, ErrLink)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

const flags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC

// walk opens rel one component at a time with O_NOFOLLOW: a link anywhere
// fails with ELOOP (or ENOTDIR for a link on a folder, reported as ELOOP).
func walk(rootfd int, rel string) (int, error) {
	parts := strings.Split(rel, "/")
	dir, err := unix.Dup(rootfd)
	if err != nil {
		return -1, err
	}
	for i, c := range parts {
		if c == "" || c == "." || c == ".." {
			unix.Close(dir)
			return -1, unix.EXDEV
		}
		last := i == len(parts)-1
		fl := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if last {
			fl = flags | unix.O_NOFOLLOW
		}
		fd, err := unix.Openat(dir, c, fl, 0)
		if errors.Is(err, unix.ENOTDIR) && !last {
			var st unix.Stat_t
			if unix.Fstatat(dir, c, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				err = unix.ELOOP
			}
		}
		unix.Close(dir)
		if err != nil {
			return -1, err
		}
		dir = fd
	}
	return dir, nil
}
