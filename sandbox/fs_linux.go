//go:build linux

package sandbox

import (
	"errors"

	"golang.org/x/sys/unix"
)

// oPath opens a directory only as a handle for *at calls.
const oPath = unix.O_PATH

// openat2Func is the signature of unix.Openat2.
type openat2Func func(dirfd int, path string, how *unix.OpenHow) (int, error)

// seekData and seekHole find the extents of sparse files.
const seekData, seekHole = unix.SEEK_DATA, unix.SEEK_HOLE

// resolve opens rel (relative to the root, "" for the root) with flags. Links
// are followed only while they stay inside the root, and the last component
// is not followed when flags holds O_NOFOLLOW.
func (r *fsRoot) resolve(rel string, flags int, mode uint32) (int, error) {
	flags |= unix.O_CLOEXEC
	if !r.forceWalk && !r.noOpenat2.Load() {
		how := unix.OpenHow{
			Flags:   uint64(flags),
			Mode:    uint64(mode),
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
		}
		p := rel
		if p == "" {
			p = "."
		}
		for i := 0; ; i++ {
			fd, err := r.sysOpenat2(r.fd, p, &how)
			if (errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR)) && i < 1000 {
				continue // a rename raced the lookup; the kernel asks to retry
			}
			if errors.Is(err, unix.ENOSYS) || (errors.Is(err, unix.EPERM) && r.openat2Blocked()) {
				r.noOpenat2.Store(true)
				break
			}
			return fd, err
		}
	}
	return walkOpen(r.fd, rel, flags, mode)
}

// openat2Blocked tells a seccomp filter that answers EPERM for openat2 (as
// container runtimes do for system calls they do not know) from a real
// EPERM on one file: opening the root itself as a handle cannot be refused
// for permissions.
func (r *fsRoot) openat2Blocked() bool {
	how := unix.OpenHow{Flags: uint64(oPath | unix.O_DIRECTORY | unix.O_CLOEXEC), Resolve: unix.RESOLVE_BENEATH}
	fd, err := r.sysOpenat2(r.fd, ".", &how)
	if err == nil {
		unix.Close(fd)
		return false
	}
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOSYS)
}

func (r *fsRoot) sysOpenat2(dirfd int, path string, how *unix.OpenHow) (int, error) {
	if r.openat2 != nil {
		return r.openat2(dirfd, path, how)
	}
	return unix.Openat2(dirfd, path, how)
}

// renameNoReplace renames without ever replacing an existing destination.
func renameNoReplace(fromfd int, from string, tofd int, to string) error {
	err := unix.Renameat2(fromfd, from, tofd, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return renameNoReplaceFallback(fromfd, from, tofd, to)
	}
	return err
}
