//go:build linux && (amd64 || arm64)

package fingerprint

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// lstatAt lstats nameZ (NUL-terminated) relative to the directory dirfd,
// without copying the name.
func lstatAt(dirfd int, nameZ []byte, st *unix.Stat_t) error {
	for {
		_, _, e := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(&nameZ[0])),
			uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
		switch e {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return e
	}
}
