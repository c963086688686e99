//go:build unix

package sandbox

import (
	"errors"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// errTendOwn is met when a path leads to tend's own files (Options.Deny).
var errTendOwn = errors.New("tend's own files")

// cleanDeny keeps the well-formed relative entries of a deny list.
func cleanDeny(deny []string) []string {
	var out []string
	for _, d := range deny {
		c := path.Clean(strings.TrimPrefix(d, "./"))
		if c == "." || c == ".." || strings.HasPrefix(c, "../") || path.IsAbs(c) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// denied reports whether the real relative path rel is one of tend's own
// paths or lies beneath one.
func (r *fsRoot) denied(rel string) bool {
	for _, d := range r.deny {
		if within(rel, d) {
			return true
		}
	}
	return false
}

// holds reports whether one of tend's own paths lies strictly beneath the
// real relative path rel: moving, copying or deleting rel would take them
// along (or hand them to the model).
func (r *fsRoot) holds(rel string) bool {
	for _, d := range r.deny {
		if d != rel && within(d, rel) {
			return true
		}
	}
	return false
}

// realRel is where the open fd really is, relative to the root, whatever
// links led there. It fails when that cannot be told (or is outside).
func (r *fsRoot) realRel(fd int) (string, error) {
	p, err := fdPath(fd)
	if err != nil {
		return "", err
	}
	root := strings.TrimSuffix(r.path, "/")
	switch {
	case p == r.path || p == root:
		return "", nil
	case strings.HasPrefix(p, root+"/"):
		return p[len(root)+1:], nil
	}
	return "", unix.EXDEV
}

// entryReal is the real relative path of the entry base inside dirfd
// (the entry itself, not followed).
func (r *fsRoot) entryReal(dirfd int, base string) (string, error) {
	real, err := r.realRel(dirfd)
	if err != nil {
		return "", err
	}
	return joinRel(real, base), nil
}

// refuseHolder fails with errTendOwn when the entry base inside dirfd is
// a folder holding tend's own files.
func (r *fsRoot) refuseHolder(dirfd int, base string) error {
	if len(r.deny) == 0 {
		return nil
	}
	real, err := r.entryReal(dirfd, base)
	if err != nil {
		return err
	}
	if r.holds(real) {
		return errTendOwn
	}
	return nil
}

// hidden reports whether the entry name of the folder whose real relative
// path is dirReal is left out of listings.
func (r *fsRoot) hidden(dirReal, name string) bool {
	return len(r.deny) > 0 && r.denied(joinRel(dirReal, name))
}
