//go:build unix && !linux && !darwin

package sandbox

import "golang.org/x/sys/unix"

const oPath = unix.O_RDONLY

// openat2Func: there is no openat2 here; the field stays nil.
type openat2Func func()

// seekData < 0: sparse files are copied whole here.
const seekData, seekHole = -1, -1

func (r *fsRoot) resolve(rel string, flags int, mode uint32) (int, error) {
	return walkOpen(r.fd, rel, flags|unix.O_CLOEXEC, mode)
}

func renameNoReplace(fromfd int, from string, tofd int, to string) error {
	return renameNoReplaceFallback(fromfd, from, tofd, to)
}
