//go:build linux

package fingerprint

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// readNames appends every entry name of the open directory fd to out, each
// followed by a NUL byte ("." and ".." left out). buf is scratch space for
// getdents64.
func readNames(fd int, buf []byte, out []byte) ([]byte, error) {
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		// struct linux_dirent64: ino u64, off i64, reclen u16, type u8, name.
		for off := 0; off+19 < n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 19 || off+reclen > n {
				return out, unix.EIO
			}
			ino := binary.NativeEndian.Uint64(buf[off:])
			name := buf[off+19 : off+reclen]
			off += reclen
			end := 0
			for end < len(name) && name[end] != 0 {
				end++
			}
			name = name[:end]
			if ino == 0 || len(name) == 0 || (name[0] == '.' && (len(name) == 1 || (len(name) == 2 && name[1] == '.'))) {
				continue
			}
			out = append(out, name...)
			out = append(out, 0)
		}
	}
}
