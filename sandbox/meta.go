//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/sys/unix"
)

// maxHashSize is the largest file whose content is hashed into Meta.
const maxHashSize = 64 << 20

// Meta is what the ledger records about one path at one moment.
type Meta struct {
	Exists  bool   `json:"exists"`
	Kind    string `json:"kind,omitempty"` // "file", "dir", "symlink" or "other"
	Size    int64  `json:"size,omitempty"`
	MtimeNs int64  `json:"mtimeNs,omitempty"`
	Mode    uint32 `json:"mode,omitempty"`  // permission bits
	Hash    string `json:"hash,omitempty"`  // xxhash hex of the content, files ≤ 64 MiB
	Ino     uint64 `json:"ino,omitempty"`   // inode number: tells a swapped entry from the one recorded
	Nlink   uint64 `json:"nlink,omitempty"` // hard links of a regular file
	Owner   *Owner `json:"owner,omitempty"`
	// Xattrs are a file's user attributes and ACL (recorded with the
	// hash), so undo can give them back.
	Xattrs map[string][]byte `json:"xattrs,omitempty"`
}

func kindOf(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return "file"
	case unix.S_IFDIR:
		return "dir"
	case unix.S_IFLNK:
		return "symlink"
	}
	return "other"
}

func metaFromStat(st *unix.Stat_t) Meta {
	m := Meta{
		Exists:  true,
		Kind:    kindOf(uint32(st.Mode)),
		MtimeNs: st.Mtim.Nano(),
		Mode:    uint32(st.Mode) & 0o7777,
		Ino:     uint64(st.Ino),
		Owner:   &Owner{Uid: st.Uid, Gid: st.Gid},
	}
	if m.Kind == "file" {
		m.Nlink = uint64(st.Nlink)
	}
	if m.Kind != "dir" {
		m.Size = st.Size
	}
	return m
}

// metaAt describes name inside the directory dirfd without following a
// final link. A missing entry is Meta{} with no error.
func metaAt(dirfd int, name string, withHash bool) (Meta, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return Meta{}, nil
		}
		return Meta{}, err
	}
	m := metaFromStat(&st)
	if withHash && m.Kind == "file" {
		f, err := openFileAt(dirfd, name)
		if err != nil {
			if m.Size > maxHashSize {
				return m, nil // neither hash nor attributes: as before
			}
			return m, err
		}
		defer f.Close()
		if m.Xattrs, err = readXattrs(int(f.Fd())); err != nil {
			return m, fmt.Errorf("%s: %w", name, err)
		}
		if m.Size <= maxHashSize {
			if m.Hash, err = hashFile(f, name); err != nil {
				return m, err
			}
		}
	}
	return m, nil
}

func hashFile(f *os.File, name string) (string, error) {
	h := xxhash.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hashing %s: %w", name, err)
	}
	return fmt.Sprintf("%016x", h.Sum64()), nil
}

// openFileAt opens a regular file for reading without following links and
// without blocking on FIFOs.
func openFileAt(dirfd int, name string) (*os.File, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if kindOf(uint32(st.Mode)) != "file" {
		unix.Close(fd)
		if kindOf(uint32(st.Mode)) == "dir" {
			return nil, unix.EISDIR
		}
		return nil, toolErrf("%q is not a regular file", name)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// sameState reports whether got matches want for convergence and undo:
// existence and kind always; size and mtime for non-directories; the content
// hash too when strict and both sides have one.
func sameState(want, got Meta, strict bool) bool {
	if want.Exists != got.Exists {
		return false
	}
	if !want.Exists {
		return true
	}
	if want.Kind != got.Kind {
		return false
	}
	if want.Kind == "dir" {
		return true
	}
	if want.Size != got.Size || want.MtimeNs != got.MtimeNs {
		return false
	}
	if strict && want.Hash != "" && got.Hash != "" && want.Hash != got.Hash {
		return false
	}
	return true
}
