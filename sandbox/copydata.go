//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/tend-agent/tend/content"
)

// copyData copies the content of src into the empty file dst. A regular
// file is copied extent by extent (SEEK_DATA/SEEK_HOLE) so its holes stay
// holes: a sparse 2 GiB disk image must not become 2 GiB of disk.
func copyData(dst *os.File, src io.Reader) error {
	f, ok := src.(*os.File)
	if !ok || seekData < 0 {
		_, err := io.Copy(dst, src)
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		_, err := io.Copy(dst, src)
		return err
	}
	if pos, err := f.Seek(0, io.SeekCurrent); err != nil || pos != 0 {
		_, err := io.Copy(dst, src) // partly read already: copy the rest as it comes
		return err
	}
	size := st.Size
	sfd := int(f.Fd())
	for off := int64(0); off < size; {
		data, err := unix.Seek(sfd, off, seekData)
		if errors.Is(err, unix.ENXIO) {
			break // only a hole is left
		}
		if err != nil { // the file system cannot tell: copy the rest whole
			data = off
		}
		hole := size
		if err == nil {
			if h, herr := unix.Seek(sfd, data, seekHole); herr == nil && h > data {
				hole = min(h, size)
			}
		}
		if _, err := io.Copy(io.NewOffsetWriter(dst, data), io.NewSectionReader(f, data, hole-data)); err != nil {
			return err
		}
		off = hole
	}
	return dst.Truncate(size)
}

// treeUsage is the disk space the entry name inside dirfd takes: the
// allocated blocks of its files (holes excluded), and of its folders.
func treeUsage(dirfd int, name string) (int64, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, err
	}
	total := int64(st.Blocks) * 512
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return total, nil
	}
	names, err := readNames(dirfd, name)
	if err != nil {
		return 0, err
	}
	fd, err := openDirAt(dirfd, name)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	for _, n := range names {
		u, err := treeUsage(fd, n)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", n, err)
		}
		total += u
	}
	return total, nil
}

// checkFits refuses a copy of src (inside srcfd) into the folder dstfd when
// the destination's file system has less free space than the copy needs.
func checkFits(srcfd int, src string, dstfd int, shownSrc string) error {
	need, err := treeUsage(srcfd, src)
	if err != nil {
		return err
	}
	var sf unix.Statfs_t
	if err := unix.Fstatfs(dstfd, &sf); err != nil {
		return err
	}
	free := int64(sf.Bavail) * int64(sf.Bsize)
	if need > free {
		return toolErrf("copying %s needs about %s of disk but only %s is free there; nothing was copied. Free some space or copy less (a subfolder or single files)", shownSrc, content.HumanSize(need), content.HumanSize(free))
	}
	return nil
}
