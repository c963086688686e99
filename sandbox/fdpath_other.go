//go:build unix && !linux && !darwin

package sandbox

import "golang.org/x/sys/unix"

// fdPath cannot tell an open file's path here: with tend's own files
// inside the folder the tools then refuse every path (fail closed).
func fdPath(fd int) (string, error) { return "", unix.ENOTSUP }
