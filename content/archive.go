package content

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxGunzip bounds how much of a .tar.gz is decompressed to list it: a
// listing must not become an extraction of a bomb.
const maxGunzip = 256 << 20

// listZip lists a zip archive from its central directory, one entry at a
// time, so an archive claiming millions of entries costs no more than the
// entries shown. Nothing is decompressed.
func listZip(r io.ReaderAt, size int64, res *Result) error {
	// The end-of-central-directory record is in the last 64 KiB + 22 bytes.
	tail := min(size, 65536+22)
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return err
	}
	i := bytes.LastIndex(buf, []byte("PK\x05\x06"))
	if i < 0 || len(buf)-i < 22 {
		return errors.New("it has no zip directory (the archive is cut short or damaged)")
	}
	eocd := buf[i:]
	total := int64(binary.LittleEndian.Uint16(eocd[10:]))
	dirOff := int64(binary.LittleEndian.Uint32(eocd[16:]))
	if total == 0xffff || dirOff == 0xffffffff { // zip64: the real values are in the zip64 record
		if j := bytes.LastIndex(buf[:i], []byte("PK\x06\x06")); j >= 0 && i-j >= 56 {
			total = int64(binary.LittleEndian.Uint64(buf[j+32:]))
			dirOff = int64(binary.LittleEndian.Uint64(buf[j+48:]))
		}
	}
	if dirOff < 0 || dirOff >= size {
		return errors.New("its directory points outside the file (the archive is damaged)")
	}
	res.add("entries", strconv.FormatInt(total, 10))
	var sb strings.Builder
	var sum uint64
	off, shown := dirOff, 0
	hdr := make([]byte, 46)
	for ; int64(shown) < total; shown++ {
		if shown == maxListing {
			break
		}
		if _, err := r.ReadAt(hdr, off); err != nil || string(hdr[:4]) != "PK\x01\x02" {
			fmt.Fprintf(&sb, "… the directory is damaged after %d entries\n", shown)
			break
		}
		usize := uint64(binary.LittleEndian.Uint32(hdr[24:]))
		nameLen := int64(binary.LittleEndian.Uint16(hdr[28:]))
		extraLen := int64(binary.LittleEndian.Uint16(hdr[30:]))
		commentLen := int64(binary.LittleEndian.Uint16(hdr[32:]))
		name := make([]byte, nameLen)
		if _, err := r.ReadAt(name, off+46); err != nil {
			fmt.Fprintf(&sb, "… the directory is damaged after %d entries\n", shown)
			break
		}
		if usize == 0xffffffff {
			extra := make([]byte, extraLen)
			if _, err := r.ReadAt(extra, off+46+nameLen); err == nil {
				usize = zip64Size(extra, usize)
			}
		}
		sum += usize
		fmt.Fprintf(&sb, "%s (%s)\n", oneLine(string(name)), HumanSize(int64(min(usize, 1<<62))))
		off += 46 + nameLen + extraLen + commentLen
	}
	if int64(shown) < total {
		fmt.Fprintf(&sb, "… %d more entries not listed (at most %d are)\n", total-int64(shown), maxListing)
	}
	res.add("unpacked size of listed entries", HumanSize(int64(min(sum, 1<<62))))
	res.Text = sb.String()
	return nil
}

// zip64Size finds the uncompressed size in a zip64 extra field.
func zip64Size(extra []byte, def uint64) uint64 {
	for len(extra) >= 4 {
		tag := binary.LittleEndian.Uint16(extra)
		n := int(binary.LittleEndian.Uint16(extra[2:]))
		extra = extra[4:]
		if n > len(extra) {
			break
		}
		if tag == 1 && n >= 8 {
			return binary.LittleEndian.Uint64(extra)
		}
		extra = extra[n:]
	}
	return def
}

// listTar lists a tar archive, or a gzip file holding one (or holding a
// single file, which is then named).
func listTar(r io.ReadSeeker, res *Result, gz bool) error {
	var in io.Reader = r
	if gz {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("its gzip header is damaged: %v", err)
		}
		zr.Multistream(false)
		if zr.Name != "" {
			res.add("compressed file", zr.Name)
		}
		in = io.LimitReader(zr, maxGunzip)
	}
	tr := tar.NewReader(in)
	var sb strings.Builder
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if n == 0 && gz {
				// A gzip of something that is not a tar: say so, list nothing.
				res.Kind = "gzip-compressed file"
				return nil
			}
			fmt.Fprintf(&sb, "… the archive is damaged or cut short after %d entries\n", n)
			break
		}
		if n == 0 && gz {
			res.Kind, res.MIME = "compressed tar archive (tar.gz)", "application/gzip"
		}
		if n == maxListing {
			fmt.Fprintf(&sb, "… more entries not listed (at most %d are)\n", maxListing)
			break
		}
		n++
		name := oneLine(h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			fmt.Fprintf(&sb, "%s\n", name)
		case tar.TypeSymlink, tar.TypeLink:
			fmt.Fprintf(&sb, "%s -> %s\n", name, oneLine(h.Linkname))
		default:
			fmt.Fprintf(&sb, "%s (%s)\n", name, HumanSize(h.Size))
		}
	}
	res.add("entries listed", strconv.Itoa(n))
	res.Text = sb.String()
	return nil
}

// HumanSize writes a byte count as people read it: 512 B, 1.5 KiB, 2.0 GiB.
func HumanSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}
