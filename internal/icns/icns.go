// Package icns writes and reads Apple icon files (.icns): a big-endian
// container of typed chunks, here only the PNG-carrying ones that macOS
// reads since 10.7. It is what packaging/Tend.icns is made with.
package icns

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"io"
)

// Types maps each PNG chunk type to the pixel side of its image.
var Types = []struct {
	Type string
	Side int
}{
	{"icp4", 16}, {"icp5", 32}, {"ic11", 32}, {"ic12", 64}, {"ic07", 128},
	{"ic13", 256}, {"ic08", 256}, {"ic14", 512}, {"ic09", 512}, {"ic10", 1024},
}

// Encode writes an icns file with every type in Types, drawing each side
// once with draw.
func Encode(w io.Writer, draw func(side int) image.Image) error {
	pngs := map[int][]byte{}
	var body bytes.Buffer
	for _, t := range Types {
		b, ok := pngs[t.Side]
		if !ok {
			img := draw(t.Side)
			if r := img.Bounds(); r.Dx() != t.Side || r.Dy() != t.Side {
				return fmt.Errorf("icns: %s wants %d×%d pixels, the drawing is %v", t.Type, t.Side, t.Side, r)
			}
			var buf bytes.Buffer
			if err := png.Encode(&buf, img); err != nil {
				return fmt.Errorf("icns: encoding %s: %w", t.Type, err)
			}
			b = buf.Bytes()
			pngs[t.Side] = b
		}
		body.WriteString(t.Type)
		binary.Write(&body, binary.BigEndian, uint32(8+len(b)))
		body.Write(b)
	}
	var head bytes.Buffer
	head.WriteString("icns")
	binary.Write(&head, binary.BigEndian, uint32(8+body.Len()))
	if _, err := w.Write(append(head.Bytes(), body.Bytes()...)); err != nil {
		return fmt.Errorf("icns: %w", err)
	}
	return nil
}

// Chunk is one entry of an icns file.
type Chunk struct {
	Type string
	Data []byte
}

// Decode splits an icns file into its chunks, checking every length.
func Decode(data []byte) ([]Chunk, error) {
	if len(data) < 8 || string(data[:4]) != "icns" {
		return nil, fmt.Errorf("icns: not an icns file (no icns header)")
	}
	if n := binary.BigEndian.Uint32(data[4:8]); int64(n) != int64(len(data)) {
		return nil, fmt.Errorf("icns: header says %d bytes, the file has %d", n, len(data))
	}
	var chunks []Chunk
	for rest := data[8:]; len(rest) > 0; {
		if len(rest) < 8 {
			return nil, fmt.Errorf("icns: %d stray bytes at the end", len(rest))
		}
		n := binary.BigEndian.Uint32(rest[4:8])
		if n < 8 || int64(n) > int64(len(rest)) {
			return nil, fmt.Errorf("icns: chunk %q claims %d bytes, %d are left", rest[:4], n, len(rest))
		}
		chunks = append(chunks, Chunk{Type: string(rest[:4]), Data: rest[8:n]})
		rest = rest[n:]
	}
	return chunks, nil
}
