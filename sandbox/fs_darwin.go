//go:build darwin

package sandbox

import (
	"errors"

	"golang.org/x/sys/unix"
)

// oPath opens a directory as a handle for *at calls (macOS has no O_PATH).
const oPath = unix.O_RDONLY

// openat2Func: there is no openat2 here; the field stays nil.
type openat2Func func()

// seekData and seekHole find the extents of sparse files.
const seekData, seekHole = unix.SEEK_DATA, unix.SEEK_HOLE

func (r *fsRoot) resolve(rel string, flags int, mode uint32) (int, error) {
	return walkOpen(r.fd, rel, flags|unix.O_CLOEXEC, mode)
}

func renameNoReplace(fromfd int, from string, tofd int, to string) error {
	err := unix.RenameatxNp(fromfd, from, tofd, to, unix.RENAME_EXCL)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return renameNoReplaceFallback(fromfd, from, tofd, to)
	}
	return err
}
