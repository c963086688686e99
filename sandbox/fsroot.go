//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// fsRoot is an open handle on the watched folder; every path is resolved
// relative to it.
type fsRoot struct {
	path      string // absolute, symlinks resolved
	fd        int    // O_PATH (or O_RDONLY) directory descriptor
	noOpenat2 atomic.Bool
	forceWalk bool // tests: use the component walk even where openat2 works
	// openat2 is the system call, replaceable so tests can play a kernel or
	// a seccomp filter that refuses it; nil means unix.Openat2.
	openat2 openat2Func
	deny    []string // tend's own paths, relative (see Options.Deny)
}

func openRoot(resolved string) (*fsRoot, error) {
	fd, err := unix.Open(resolved, oPath|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening folder %s: %w", resolved, err)
	}
	return &fsRoot{path: resolved, fd: fd}, nil
}

func (r *fsRoot) close() error { return unix.Close(r.fd) }

// abs returns the absolute path of rel for messages and trash records.
func (r *fsRoot) abs(rel string) string {
	if rel == "" {
		return r.path
	}
	return strings.TrimSuffix(r.path, "/") + "/" + rel
}

// open opens rel with flags (see resolve) and refuses what lands on one of
// tend's own paths, whichever links led there.
func (r *fsRoot) open(rel string, flags int, mode uint32) (int, error) {
	fd, err := r.resolve(rel, flags, mode)
	if err != nil || len(r.deny) == 0 {
		return fd, err
	}
	real, err := r.realRel(fd)
	if err == nil && r.denied(real) {
		err = errTendOwn
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// openDir returns a handle on the folder rel, following links inside.
func (r *fsRoot) openDir(rel string) (int, error) {
	return r.open(rel, oPath|unix.O_DIRECTORY, 0)
}

// openParent returns a handle on rel's parent folder and rel's last name.
// The last component itself is never followed: callers use *at calls with
// AT_SYMLINK_NOFOLLOW / O_NOFOLLOW on (fd, base).
func (r *fsRoot) openParent(rel string) (int, string, error) {
	if rel == "" {
		return -1, "", toolErrf("this needs a path inside the watched folder, not the folder itself")
	}
	parent, base := splitRel(rel)
	fd, err := r.openDir(parent)
	if err != nil {
		if errors.Is(err, errTendOwn) {
			return -1, "", describeErr(rel, err)
		}
		return -1, "", describeErr(parent, err)
	}
	if len(r.deny) > 0 {
		real, err := r.realRel(fd)
		if err == nil && r.denied(joinRel(real, base)) {
			err = errTendOwn
		}
		if err != nil {
			unix.Close(fd)
			return -1, "", describeErr(rel, err)
		}
	}
	return fd, base, nil
}

// walkOpen is the portable resolver: it walks rel one component at a time
// from rootfd with O_NOFOLLOW, follows relative symlinks by splicing their
// target into the walk, refuses absolute link targets and any ".." above the
// root (EXDEV, like RESOLVE_BENEATH), and opens the last component with
// flags. The last component is followed unless flags holds O_NOFOLLOW.
func walkOpen(rootfd int, rel string, flags int, mode uint32) (int, error) {
	followLast := flags&unix.O_NOFOLLOW == 0
	start, err := unix.Openat(rootfd, ".", oPath|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	stack := []int{start}
	defer func() {
		for _, fd := range stack {
			unix.Close(fd)
		}
	}()
	queue := splitComponents(rel)
	links, retries := 0, 0
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		top := stack[len(stack)-1]
		if c == ".." {
			if len(stack) == 1 {
				return -1, unix.EXDEV
			}
			unix.Close(top)
			stack = stack[:len(stack)-1]
			continue
		}
		last := len(queue) == 0
		var st unix.Stat_t
		serr := unix.Fstatat(top, c, &st, unix.AT_SYMLINK_NOFOLLOW)
		if serr == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK && (!last || followLast) {
			links++
			if links > 40 {
				return -1, unix.ELOOP
			}
			target, err := readlinkAt(top, c)
			if err != nil {
				return -1, err
			}
			if target == "" || strings.HasPrefix(target, "/") {
				return -1, unix.EXDEV
			}
			queue = append(splitComponents(target), queue...)
			continue
		}
		if last {
			if serr != nil && !(errors.Is(serr, unix.ENOENT) && flags&unix.O_CREAT != 0) {
				return -1, serr
			}
			fd, err := unix.Openat(top, c, flags|unix.O_NOFOLLOW, mode)
			if errors.Is(err, unix.ELOOP) && followLast && retries < 10 {
				retries++ // swapped for a link since the stat: look again
				queue = []string{c}
				continue
			}
			return fd, err
		}
		if serr != nil {
			return -1, serr
		}
		fd, err := unix.Openat(top, c, oPath|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			if (errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR)) && retries < 10 {
				retries++
				queue = append([]string{c}, queue...)
				continue
			}
			return -1, err
		}
		stack = append(stack, fd)
	}
	return unix.Openat(stack[len(stack)-1], ".", flags, mode)
}

func splitComponents(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

func readlinkAt(dirfd int, name string) (string, error) {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(dirfd, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// renameNoReplaceFallback is used where the kernel or file system has no
// no-replace rename: a hard link fails atomically when the name is taken;
// directories (which cannot be linked) are checked just before renaming.
func renameNoReplaceFallback(fromfd int, from string, tofd int, to string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(fromfd, from, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		err := unix.Linkat(fromfd, from, tofd, to, 0)
		if err == nil {
			return unix.Unlinkat(fromfd, from, 0)
		}
		if !errors.Is(err, unix.EPERM) && !errors.Is(err, unix.ENOTSUP) && !errors.Is(err, unix.EOPNOTSUPP) {
			return err
		}
	}
	var dst unix.Stat_t
	if err := unix.Fstatat(tofd, to, &dst, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		return unix.EEXIST
	} else if !errors.Is(err, unix.ENOENT) {
		return err
	}
	return unix.Renameat(fromfd, from, tofd, to)
}
