//go:build darwin

package sandbox

import (
	"bytes"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fdPath is the absolute path of an open file, as the kernel knows it
// (fcntl F_GETPATH; x/sys/unix has no wrapper taking a buffer, so the
// buffer goes through the pointer argument of FcntlFlock).
func fdPath(fd int) (string, error) {
	buf := make([]byte, unix.PathMax)
	if err := unix.FcntlFlock(uintptr(fd), unix.F_GETPATH, (*unix.Flock_t)(unsafe.Pointer(&buf[0]))); err != nil {
		return "", err
	}
	if i := bytes.IndexByte(buf, 0); i >= 0 {
		buf = buf[:i]
	}
	return string(buf), nil
}
