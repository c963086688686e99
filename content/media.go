package content

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/dhowden/tag"
)

// readMedia gives the tags of an audio or video file and, where the
// header says it outright (WAV, FLAC, MP4), its duration.
func readMedia(r io.ReaderAt, size int64, res *Result) error {
	if d, ok := mediaDuration(r, size, res.MIME); ok {
		res.add("duration", formatDuration(d))
	}
	m, err := tag.ReadFrom(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil // no tags is normal; the type and size still stand
	}
	res.add("title", m.Title())
	res.add("artist", m.Artist())
	res.add("album", m.Album())
	if y := m.Year(); y > 0 {
		res.add("year", strconv.Itoa(y))
	}
	if n, total := m.Track(); n > 0 {
		if total > 0 {
			res.add("track", fmt.Sprintf("%d of %d", n, total))
		} else {
			res.add("track", strconv.Itoa(n))
		}
	}
	res.add("genre", m.Genre())
	return nil
}

func formatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%d:%02d", m, s)
}

// mediaDuration reads the duration from headers that state it.
func mediaDuration(r io.ReaderAt, size int64, mime string) (time.Duration, bool) {
	head := make([]byte, min(size, 64<<10))
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	switch {
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WAVE":
		return wavDuration(head)
	case len(head) >= 42 && string(head[:4]) == "fLaC":
		// STREAMINFO is the first metadata block: 20 bits of sample rate
		// and 36 bits of total samples.
		si := head[8:]
		rate := uint64(si[10])<<12 | uint64(si[11])<<4 | uint64(si[12])>>4
		total := uint64(si[13]&0x0F)<<32 | uint64(binary.BigEndian.Uint32(si[14:]))
		if rate == 0 || total == 0 {
			return 0, false
		}
		return time.Duration(float64(total) / float64(rate) * float64(time.Second)), true
	case len(head) >= 8 && string(head[4:8]) == "ftyp":
		return mp4Duration(r, size)
	}
	return 0, false
}

// wavDuration divides the data chunk's size by the byte rate.
func wavDuration(h []byte) (time.Duration, bool) {
	var byteRate uint32
	for p := 12; p+8 <= len(h); {
		id, n := string(h[p:p+4]), int64(binary.LittleEndian.Uint32(h[p+4:]))
		switch id {
		case "fmt ":
			if p+20 <= len(h) { // byte rate: 4 bytes at offset 8 of the chunk body
				byteRate = binary.LittleEndian.Uint32(h[p+16:])
			}
		case "data":
			if byteRate == 0 {
				return 0, false
			}
			return time.Duration(float64(n) / float64(byteRate) * float64(time.Second)), true
		}
		p += 8 + int(n+n%2)
		if n < 0 || n > int64(len(h)) {
			break
		}
	}
	return 0, false
}

// mp4Duration finds moov/mvhd among the top-level boxes.
func mp4Duration(r io.ReaderAt, size int64) (time.Duration, bool) {
	hdr := make([]byte, 16)
	var walk func(off, end int64, depth int) (time.Duration, bool)
	walk = func(off, end int64, depth int) (time.Duration, bool) {
		for boxes := 0; off+8 <= end && boxes < 1000; boxes++ {
			if _, err := r.ReadAt(hdr[:8], off); err != nil {
				return 0, false
			}
			n := int64(binary.BigEndian.Uint32(hdr))
			typ := string(hdr[4:8])
			hl := int64(8)
			if n == 1 {
				if _, err := r.ReadAt(hdr[8:16], off+8); err != nil {
					return 0, false
				}
				n, hl = int64(binary.BigEndian.Uint64(hdr[8:])), 16
			} else if n == 0 {
				n = end - off
			}
			if n < hl || off+n > end {
				return 0, false
			}
			switch typ {
			case "moov":
				if depth == 0 {
					return walk(off+hl, off+n, 1)
				}
			case "mvhd":
				b := make([]byte, 32)
				if _, err := r.ReadAt(b, off+hl); err != nil {
					return 0, false
				}
				var scale uint32
				var dur uint64
				if b[0] == 1 {
					scale, dur = binary.BigEndian.Uint32(b[20:]), binary.BigEndian.Uint64(b[24:])
				} else {
					scale, dur = binary.BigEndian.Uint32(b[12:]), uint64(binary.BigEndian.Uint32(b[16:]))
				}
				if scale == 0 {
					return 0, false
				}
				return time.Duration(float64(dur) / float64(scale) * float64(time.Second)), true
			}
			off += n
		}
		return 0, false
	}
	return walk(0, size, 0)
}
