//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// readXattrs reads the extended attributes tend keeps (see keptXattr) of
// the open file fd; nil where the file system has none.
func readXattrs(fd int) (map[string][]byte, error) {
	names, err := listXattrs(fd)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	out := map[string][]byte{}
	for _, n := range names {
		if !keptXattr(n) {
			continue
		}
		v, err := getXattr(fd, n)
		if errors.Is(err, unix.ENODATA) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("reading attribute %s: %w", n, err)
		}
		out[n] = v
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func listXattrs(fd int) ([]string, error) {
	for size := 1024; size <= 1<<20; size *= 4 {
		buf := make([]byte, size)
		n, err := unix.Flistxattr(fd, buf)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("listing attributes: %w", err)
		}
		var names []string
		for _, s := range strings.Split(string(buf[:n]), "\x00") {
			if s != "" {
				names = append(names, s)
			}
		}
		return names, nil
	}
	return nil, fmt.Errorf("listing attributes: the list is too long")
}

func getXattr(fd int, name string) ([]byte, error) {
	for size := 256; size <= 1<<20; size *= 4 {
		buf := make([]byte, size)
		n, err := unix.Fgetxattr(fd, name, buf)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
	return nil, fmt.Errorf("attribute %s is too large", name)
}

// setXattrs sets the attributes want on fd; exact also removes the kept
// attributes not in want (say an ACL inherited from the folder).
func setXattrs(fd int, want map[string][]byte, exact bool) error {
	var have []string
	if exact {
		var err error
		if have, err = listXattrs(fd); err != nil {
			return err
		}
	}
	for _, n := range have {
		if _, ok := want[n]; !ok && keptXattr(n) {
			if err := unix.Fremovexattr(fd, n); err != nil && !errors.Is(err, unix.ENODATA) {
				return fmt.Errorf("removing attribute %s: %w", n, err)
			}
		}
	}
	for n, v := range want {
		if !keptXattr(n) {
			continue
		}
		if err := unix.Fsetxattr(fd, n, v, 0); err != nil {
			return fmt.Errorf("setting attribute %s: %w", n, err)
		}
	}
	return nil
}
