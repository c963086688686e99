//go:build unix && !(linux && (amd64 || arm64))

package fingerprint

import "golang.org/x/sys/unix"

// lstatAt lstats nameZ (NUL-terminated) relative to the directory dirfd.
func lstatAt(dirfd int, nameZ []byte, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dirfd, string(nameZ[:len(nameZ)-1]), st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}
