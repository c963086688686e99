package content

import (
	"encoding/binary"
	"fmt"
	"image"
	_ "image/gif" // registers the decoder for DecodeConfig
	_ "image/jpeg"
	_ "image/png"
	"io"
	"strconv"
	"strings"
	"time"

	exif "github.com/dsoprea/go-exif/v3"
	exifcommon "github.com/dsoprea/go-exif/v3/common"
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

// readExif adds camera, date taken, orientation and GPS position, read
// with go-exif from the TIFF block b. A malformed block adds what could be
// read and nothing else.
func readExif(b []byte, res *Result) {
	defer func() {
		if recover() != nil {
			res.add("exif", "damaged; some facts could not be read")
		}
	}()
	if len(b) < 8 {
		return
	}
	im, err := exifcommon.NewIfdMappingWithStandard()
	if err != nil {
		return
	}
	_, index, err := exif.Collect(im, exif.NewTagIndex(), b)
	if err != nil || index.RootIfd == nil {
		return
	}
	root := index.RootIfd
	first := func(ifd *exif.Ifd, name string) string {
		if ifd == nil {
			return ""
		}
		tags, err := ifd.FindTagWithName(name)
		if err != nil || len(tags) == 0 {
			return ""
		}
		v, err := tags[0].FormatFirst()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(strings.TrimRight(v, "\x00"))
	}
	exifIfd, _ := root.ChildWithIfdPath(exifcommon.IfdExifStandardIfdIdentity)
	taken := first(exifIfd, "DateTimeOriginal")
	if taken == "" {
		taken = first(root, "DateTime")
	}
	if d, err := time.Parse("2006:01:02 15:04:05", taken); err == nil {
		res.add("date taken", d.Format("2006-01-02T15:04:05"))
	}
	res.add("camera", strings.TrimSpace(first(root, "Make")+" "+first(root, "Model")))
	if o, err := strconv.Atoi(first(root, "Orientation")); err == nil && o >= 1 && o <= 8 {
		res.add("orientation", orientations[o])
	}
	if gpsIfd, err := root.ChildWithIfdPath(exifcommon.IfdGpsInfoStandardIfdIdentity); err == nil && gpsIfd != nil {
		if gi, err := gpsIfd.GpsInfo(); err == nil {
			lat, lon := gi.Latitude.Decimal(), gi.Longitude.Decimal()
			if lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180 && (lat != 0 || lon != 0) {
				res.add("gps position", fmt.Sprintf("%.6f, %.6f", lat, lon))
			}
		}
	}
}

var orientations = [...]string{"", "normal", "mirrored", "rotated 180°", "mirrored and rotated 180°",
	"mirrored and rotated 90° clockwise", "rotated 90° clockwise", "mirrored and rotated 90° counter-clockwise", "rotated 90° counter-clockwise"}
