//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Owner is the owning user and group of an entry.
type Owner struct {
	Uid uint32 `json:"uid"`
	Gid uint32 `json:"gid"`
}

// fileAttrs is what a file gets besides its content: undo gives back all
// of the old file's; new content written by the model keeps the owner,
// user attributes and ACL, but never setuid/setgid (see newContentAttrs).
type fileAttrs struct {
	Mode    uint32
	Owner   *Owner            // nil: left as created
	Xattrs  map[string][]byte // set on the file
	Exact   bool              // kept attributes not in Xattrs are removed (say an inherited ACL)
	MtimeNs int64             // 0: left as written
}

// attrsOf is everything recorded of m, for an exact restore.
func attrsOf(m Meta) fileAttrs {
	return fileAttrs{Mode: m.Mode, Owner: m.Owner, Xattrs: m.Xattrs, Exact: true, MtimeNs: m.MtimeNs}
}

// newContentAttrs are the attributes of content the model writes over the
// file described by before: the same owner, user attributes and ACL, the
// same permissions without setuid and setgid (a privilege given to the old
// program, not to whatever replaces it), and no security.* attributes such
// as file capabilities.
func newContentAttrs(before Meta) fileAttrs {
	a := fileAttrs{Mode: before.Mode &^ (unix.S_ISUID | unix.S_ISGID), Owner: before.Owner, Exact: true}
	for k, v := range before.Xattrs {
		if keptXattr(k) {
			if a.Xattrs == nil {
				a.Xattrs = map[string][]byte{}
			}
			a.Xattrs[k] = v
		}
	}
	return a
}

// keptXattr: the attributes tend records and puts back. Others (security.*,
// trusted.*) carry privileges or belong to the system.
func keptXattr(name string) bool {
	return strings.HasPrefix(name, "user.") || name == "system.posix_acl_access"
}

// applyAttrs sets owner, extended attributes and mode on the open file f,
// in that order: a change of owner clears setuid, and an ACL sets the
// group bits. The owner is set only where tend may (as root, or to itself).
func applyAttrs(f *os.File, a fileAttrs) error {
	fd := int(f.Fd())
	if a.Owner != nil {
		if err := unix.Fchown(fd, int(a.Owner.Uid), int(a.Owner.Gid)); err != nil && !errors.Is(err, unix.EPERM) {
			return fmt.Errorf("setting owner: %w", err)
		}
	}
	if err := setXattrs(fd, a.Xattrs, a.Exact); err != nil {
		return err
	}
	if err := unix.Fchmod(fd, a.Mode&0o7777); err != nil {
		return fmt.Errorf("setting mode: %w", err)
	}
	return nil
}

// rewriteInPlace replaces the content of the regular file name inside
// dirfd without changing its inode, so its other hard links see the new
// content too; ino is the inode it must still be.
func rewriteInPlace(dirfd int, name string, ino uint64, src io.Reader, a fileAttrs) error {
	fd, err := unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Ino != ino {
		return toolErrf("%q was replaced by another file while it was being changed; nothing was written", name)
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := io.Copy(f, src); err != nil {
		return err
	}
	if err := applyAttrs(f, a); err != nil {
		return err
	}
	if a.MtimeNs > 0 {
		ts := []unix.Timespec{unix.NsecToTimespec(a.MtimeNs), unix.NsecToTimespec(a.MtimeNs)}
		if err := unix.UtimesNanoAt(dirfd, name, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
	}
	return f.Sync()
}

// writeOver puts the model's new content at base (rel in the folder),
// whose current state is before: a file with several hard links (allowed
// by the watcher) is rewritten in its inode, any other is replaced
// atomically. setuid/setgid never carry over.
func (b *Box) writeOver(dirfd int, base string, src io.Reader, before Meta) error {
	if before.Nlink > 1 && b.opts.AllowHardLinks {
		return rewriteInPlace(dirfd, base, before.Ino, src, newContentAttrs(before))
	}
	return replaceAtAttrs(dirfd, base, src, newContentAttrs(before))
}
