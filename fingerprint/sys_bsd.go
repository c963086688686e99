//go:build unix && !linux

package fingerprint

import "golang.org/x/sys/unix"

// readNames appends every entry name of the open directory fd to out, each
// followed by a NUL byte ("." and ".." left out). buf is scratch space.
func readNames(fd int, buf []byte, out []byte) ([]byte, error) {
	var names []string
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names[:0])
		for _, name := range names {
			out = append(out, name...)
			out = append(out, 0)
		}
	}
}
