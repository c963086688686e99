//go:build linux

package sandbox

import (
	"os"
	"strconv"
)

// fdPath is the absolute path of an open file, as the kernel knows it.
func fdPath(fd int) (string, error) {
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
}
