package content

import (
	"encoding/binary"
	"fmt"
	"image"
	_ "image/gif" // registers the decoder for DecodeConfig
	_ "image/jpeg"
	_ "image/png"
	"io"
	"strings"
	"time"
)

// readImage gives the dimensions and, for JPEG and TIFF, the EXIF facts a
// person files photos by.
func readImage(r io.ReaderAt, size int64, res *Result) error {
	if cfg, _, err := image.DecodeConfig(io.NewSectionReader(r, 0, size)); err == nil {
		res.add("dimensions", fmt.Sprintf("%d × %d pixels", cfg.Width, cfg.Height))
	}
	var tiff []byte
	switch res.MIME {
	case "image/jpeg":
		tiff = jpegExif(r, size)
	case "image/tiff":
		tiff = make([]byte, min(size, 1<<20))
		n, _ := r.ReadAt(tiff, 0)
		tiff = tiff[:n]
	}
	if tiff != nil {
		readExif(tiff, res)
	}
	if res.Get("dimensions") == "" && res.MIME == "image/jpeg" {
		res.Failed = "the JPEG image is damaged or cut short: its size could not be read"
	}
	return nil
}

// jpegExif returns the TIFF block of the first EXIF APP1 segment.
func jpegExif(r io.ReaderAt, size int64) []byte {
	off := int64(2)
	hdr := make([]byte, 4)
	for segs := 0; off+4 <= size && segs < 64; segs++ {
		if _, err := r.ReadAt(hdr, off); err != nil || hdr[0] != 0xFF {
			return nil
		}
		marker := hdr[1]
		if marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01 || marker == 0xFF {
			off += 2
			if marker == 0xFF {
				off--
			}
			continue
		}
		if marker == 0xDA || marker == 0xD9 { // image data: no metadata after
			return nil
		}
		n := int64(binary.BigEndian.Uint16(hdr[2:]))
		if n < 2 {
			return nil
		}
		if marker == 0xE1 && n > 8 {
			seg := make([]byte, n-2)
			if _, err := r.ReadAt(seg, off+4); err != nil {
				return nil
			}
			if strings.HasPrefix(string(seg), "Exif\x00\x00") {
				return seg[6:]
			}
		}
		off += 2 + n
	}
	return nil
}

// EXIF tags read.
const (
	tagMake             = 0x010F
	tagModel            = 0x0110
	tagOrientation      = 0x0112
	tagDateTime         = 0x0132
	tagExifIFD          = 0x8769
	tagGPSIFD           = 0x8825
	tagDateTimeOriginal = 0x9003
	tagGPSLatRef        = 1
	tagGPSLat           = 2
	tagGPSLonRef        = 3
	tagGPSLon           = 4
)

// tiffReader reads IFD entries of one TIFF block, bounds-checked.
type tiffReader struct {
	b  []byte
	bo binary.ByteOrder
}

type ifdEntry struct {
	typ   uint16
	count uint32
	val   []byte // the value bytes (inline or at their offset)
}

// ifd returns the entries of the IFD at off, by tag.
func (t tiffReader) ifd(off uint32) map[uint16]ifdEntry {
	out := map[uint16]ifdEntry{}
	if int64(off)+2 > int64(len(t.b)) {
		return out
	}
	n := int(t.bo.Uint16(t.b[off:]))
	for i := 0; i < n && i < 500; i++ {
		p := int64(off) + 2 + int64(i)*12
		if p+12 > int64(len(t.b)) {
			break
		}
		e := t.b[p : p+12]
		typ, count := t.bo.Uint16(e[2:]), t.bo.Uint32(e[4:])
		sz := int64(typeSize(typ)) * int64(count)
		var val []byte
		if sz <= 4 {
			val = e[8 : 8+sz]
		} else {
			vo := int64(t.bo.Uint32(e[8:]))
			if vo+sz > int64(len(t.b)) {
				continue
			}
			val = t.b[vo : vo+sz]
		}
		out[t.bo.Uint16(e)] = ifdEntry{typ, count, val}
	}
	return out
}

func typeSize(typ uint16) int {
	switch typ {
	case 1, 2, 6, 7:
		return 1
	case 3, 8:
		return 2
	case 4, 9, 11:
		return 4
	case 5, 10, 12:
		return 8
	}
	return 0
}

func (t tiffReader) str(e ifdEntry) string {
	if e.typ != 2 {
		return ""
	}
	return strings.TrimSpace(strings.TrimRight(string(e.val), "\x00"))
}

func (t tiffReader) uint(e ifdEntry) (uint32, bool) {
	switch {
	case e.typ == 3 && len(e.val) >= 2:
		return uint32(t.bo.Uint16(e.val)), true
	case e.typ == 4 && len(e.val) >= 4:
		return t.bo.Uint32(e.val), true
	}
	return 0, false
}

// degrees reads a GPS position of three rationals (degrees, minutes,
// seconds).
func (t tiffReader) degrees(e ifdEntry) (float64, bool) {
	if e.typ != 5 || len(e.val) < 24 {
		return 0, false
	}
	var v float64
	for i, div := range []float64{1, 60, 3600} {
		num, den := t.bo.Uint32(e.val[i*8:]), t.bo.Uint32(e.val[i*8+4:])
		if den == 0 {
			if num == 0 {
				continue
			}
			return 0, false
		}
		v += float64(num) / float64(den) / div
	}
	return v, true
}

// readExif adds camera, date taken, orientation and GPS position.
func readExif(b []byte, res *Result) {
	if len(b) < 8 {
		return
	}
	t := tiffReader{b: b}
	switch string(b[:2]) {
	case "II":
		t.bo = binary.LittleEndian
	case "MM":
		t.bo = binary.BigEndian
	default:
		return
	}
	ifd0 := t.ifd(t.bo.Uint32(b[4:]))
	var exif, gps map[uint16]ifdEntry
	if e, ok := ifd0[tagExifIFD]; ok {
		if off, ok := t.uint(e); ok {
			exif = t.ifd(off)
		}
	}
	if e, ok := ifd0[tagGPSIFD]; ok {
		if off, ok := t.uint(e); ok {
			gps = t.ifd(off)
		}
	}
	taken := t.str(exif[tagDateTimeOriginal])
	if taken == "" {
		taken = t.str(ifd0[tagDateTime])
	}
	if d, err := time.Parse("2006:01:02 15:04:05", taken); err == nil {
		res.add("date taken", d.Format("2006-01-02T15:04:05"))
	}
	camera := strings.TrimSpace(t.str(ifd0[tagMake]) + " " + t.str(ifd0[tagModel]))
	res.add("camera", camera)
	if o, ok := t.uint(ifd0[tagOrientation]); ok && o >= 1 && o <= 8 {
		res.add("orientation", orientations[o])
	}
	lat, ok1 := t.degrees(gps[tagGPSLat])
	lon, ok2 := t.degrees(gps[tagGPSLon])
	if ok1 && ok2 && lat <= 90 && lon <= 180 {
		if t.str(gps[tagGPSLatRef]) == "S" {
			lat = -lat
		}
		if t.str(gps[tagGPSLonRef]) == "W" {
			lon = -lon
		}
		res.add("gps position", fmt.Sprintf("%.6f, %.6f", lat, lon))
	}
}

var orientations = [...]string{"", "normal", "mirrored", "rotated 180°", "mirrored and rotated 180°",
	"mirrored and rotated 90° clockwise", "rotated 90° clockwise", "mirrored and rotated 90° counter-clockwise", "rotated 90° counter-clockwise"}
