//go:build unix

package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"
)

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// createTemp makes a new hidden temporary file inside dirfd.
func createTemp(dirfd int) (*os.File, string, error) {
	for i := 0; ; i++ {
		name := ".tend-" + randHex(6) + ".tmp"
		fd, err := unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) && i < 100 {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return os.NewFile(uintptr(fd), name), name, nil
	}
}

// writeTempAt writes the content from src to a new temporary file in dirfd
// with the given mode (and mtime when mtimeNs > 0), synced, and returns its
// name.
func writeTempAt(dirfd int, src io.Reader, mode uint32, mtimeNs int64) (string, error) {
	return writeTempAttrs(dirfd, src, fileAttrs{Mode: mode, MtimeNs: mtimeNs})
}

// writeTempAttrs is writeTempAt with owner and extended attributes too.
func writeTempAttrs(dirfd int, src io.Reader, a fileAttrs) (string, error) {
	mode, mtimeNs := a.Mode, a.MtimeNs
	f, name, err := createTemp(dirfd)
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		f.Close()
		unix.Unlinkat(dirfd, name, 0)
		return "", err
	}
	if err := copyData(f, src); err != nil {
		return fail(err)
	}
	if err := applyAttrs(f, fileAttrs{Mode: mode, Owner: a.Owner, Xattrs: a.Xattrs, Exact: a.Exact}); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		unix.Unlinkat(dirfd, name, 0)
		return "", err
	}
	if mtimeNs > 0 {
		ts := []unix.Timespec{unix.NsecToTimespec(mtimeNs), unix.NsecToTimespec(mtimeNs)}
		if err := unix.UtimesNanoAt(dirfd, name, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			unix.Unlinkat(dirfd, name, 0)
			return "", err
		}
	}
	return name, nil
}

// writeNewAt atomically creates name in dirfd; it fails with EEXIST rather
// than replace anything.
func writeNewAt(dirfd int, name string, src io.Reader, mode uint32, mtimeNs int64) error {
	return writeNewAtAttrs(dirfd, name, src, fileAttrs{Mode: mode, MtimeNs: mtimeNs})
}

// writeNewAtAttrs is writeNewAt with owner and extended attributes too.
func writeNewAtAttrs(dirfd int, name string, src io.Reader, a fileAttrs) error {
	tmp, err := writeTempAttrs(dirfd, src, a)
	if err != nil {
		return err
	}
	if err := renameNoReplace(dirfd, tmp, dirfd, name); err != nil {
		unix.Unlinkat(dirfd, tmp, 0)
		return err
	}
	return nil
}

// replaceAt atomically replaces name in dirfd with new content.
func replaceAt(dirfd int, name string, src io.Reader, mode uint32, mtimeNs int64) error {
	return replaceAtAttrs(dirfd, name, src, fileAttrs{Mode: mode, MtimeNs: mtimeNs})
}

// replaceAtAttrs is replaceAt with owner and extended attributes too.
func replaceAtAttrs(dirfd int, name string, src io.Reader, a fileAttrs) error {
	tmp, err := writeTempAttrs(dirfd, src, a)
	if err != nil {
		return err
	}
	if err := unix.Renameat(dirfd, tmp, dirfd, name); err != nil {
		unix.Unlinkat(dirfd, tmp, 0)
		return err
	}
	return nil
}

// readNames lists the directory name inside dirfd ("." for dirfd itself),
// sorted, without following a final link.
func readNames(dirfd int, name string) ([]string, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// openDirAt opens the directory name inside dirfd as a handle, never
// following a link.
func openDirAt(dirfd int, name string) (int, error) {
	return unix.Openat(dirfd, name, oPath|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// copyOpts say how copyTreeAt copies.
type copyOpts struct {
	keepTimes    bool // an exact copy (trash): keep times, owner, attributes and setuid
	refuseLinked bool // refuse regular files with more than one hard link
}

// copyTreeAt copies src (inside srcdir) to dst (inside dstdir), which must
// not exist. Links are copied as links, never followed.
func copyTreeAt(srcdir int, src string, dstdir int, dst string, o copyOpts) error {
	var st unix.Stat_t
	if err := unix.Fstatat(srcdir, src, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	m := metaFromStat(&st)
	switch m.Kind {
	case "file":
		f, err := openFileAt(srcdir, src)
		if err != nil {
			return err
		}
		defer f.Close()
		if o.refuseLinked {
			if err := refuseLinkedFile(f, src); err != nil {
				return err
			}
		}
		if o.keepTimes { // a trash copy: the same file elsewhere
			x, err := readXattrs(int(f.Fd()))
			if err != nil {
				return err
			}
			return writeNewAtAttrs(dstdir, dst, f, fileAttrs{Mode: m.Mode, Owner: m.Owner, Xattrs: x, Exact: true, MtimeNs: m.MtimeNs})
		}
		// a copy made by the model is new content: never setuid/setgid
		return writeNewAt(dstdir, dst, f, m.Mode&^(unix.S_ISUID|unix.S_ISGID), 0)
	case "symlink":
		target, err := readlinkAt(srcdir, src)
		if err != nil {
			return err
		}
		return unix.Symlinkat(target, dstdir, dst)
	case "dir":
		names, err := readNames(srcdir, src)
		if err != nil {
			return err
		}
		if err := unix.Mkdirat(dstdir, dst, 0o700); err != nil {
			return err
		}
		sfd, err := openDirAt(srcdir, src)
		if err != nil {
			return err
		}
		defer unix.Close(sfd)
		dfd, err := openDirAt(dstdir, dst)
		if err != nil {
			return err
		}
		defer unix.Close(dfd)
		for _, n := range names {
			if err := copyTreeAt(sfd, n, dfd, n, o); err != nil {
				return fmt.Errorf("copying %s: %w", n, err)
			}
		}
		cfd, err := unix.Openat(dstdir, dst, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(cfd)
		return unix.Fchmod(cfd, m.Mode)
	}
	return toolErrf("%q is not a file, folder or link and cannot be copied", src)
}

// removeTreeAt removes name inside dirfd and everything below it, never
// following links.
func removeTreeAt(dirfd int, name string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	if kindOf(uint32(st.Mode)) != "dir" {
		return unix.Unlinkat(dirfd, name, 0)
	}
	names, err := readNames(dirfd, name)
	if err != nil {
		return err
	}
	fd, err := openDirAt(dirfd, name)
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := removeTreeAt(fd, n); err != nil {
			unix.Close(fd)
			return err
		}
	}
	unix.Close(fd)
	return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
}

// atomicWriteFile writes one of tend's own files (ledger, backup): temp file
// in the same folder, fsync, rename, fsync of the folder.
func atomicWriteFile(path string, src io.Reader, mode os.FileMode) error {
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("opening folder of %s: %w", path, err)
	}
	defer dir.Close()
	dfd := int(dir.Fd())
	tmp, err := writeTempAt(dfd, src, uint32(mode), 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := unix.Renameat(dfd, tmp, dfd, filepath.Base(path)); err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_ = dir.Sync()
	return nil
}
