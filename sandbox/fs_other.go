//go:build unix && !linux && !darwin

package sandbox

import "golang.org/x/sys/unix"

const oPath = unix.O_RDONLY

func (r *fsRoot) open(rel string, flags int, mode uint32) (int, error) {
	return walkOpen(r.fd, rel, flags|unix.O_CLOEXEC, mode)
}

func renameNoReplace(fromfd int, from string, tofd int, to string) error {
	return renameNoReplaceFallback(fromfd, from, tofd, to)
}
