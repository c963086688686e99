//go:build unix

package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testPicture is a w×h picture with a left half red and a right half blue,
// so a downscale that mixes up columns shows.
func testPicture(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			p := m.Pix[y*m.Stride+x*4:]
			p[0], p[1], p[2], p[3] = 220, 20, 20, 255
			if x >= w/2 {
				p[0], p[2] = 20, 220
			}
		}
	}
	return m
}

func encoded(t *testing.T, format string, m image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&buf, m)
	case "jpeg":
		err = jpeg.Encode(&buf, m, &jpeg.Options{Quality: 90})
	case "gif":
		// Paletted already, so the encoder does not dither 4 megapixels.
		b := m.Bounds()
		pm := image.NewPaletted(b, color.Palette{color.NRGBA{R: 220, G: 20, B: 20, A: 255}, color.NRGBA{R: 20, G: 20, B: 220, A: 255}})
		for y := range b.Dy() {
			for x := b.Dx() / 2; x < b.Dx(); x++ {
				pm.Pix[y*pm.Stride+x] = 1 // the blue half, as testPicture
			}
		}
		err = gif.Encode(&buf, pm, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func visionEnv(t *testing.T, vision bool) *env {
	e := newEnv(t, false)
	o := e.opts(false)
	o.Vision = vision
	b, err := New(e.root, e.ledger, o)
	if err != nil {
		t.Fatal(err)
	}
	e.box.Close()
	e.box = b
	t.Cleanup(func() { b.Close() })
	return e
}

func readResult(t *testing.T, e *env, rel string) Result {
	t.Helper()
	r, err := e.box.CallResult(context.Background(), "file_read", []byte(`{"path":"`+rel+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestFileReadAttachesPictures(t *testing.T) {
	e := visionEnv(t, true)
	// Names say nothing: the format is sniffed from the bytes.
	big := encoded(t, "jpeg", testPicture(2000, 1000))
	small := encoded(t, "png", testPicture(40, 30))
	anim := encoded(t, "gif", testPicture(1100, 2200))
	for name, data := range map[string][]byte{"scan": big, "icon.dat": small, "Photos/anim": anim} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(e.root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.root, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		rel, mime string
		w, h      int
		file      []byte
		same      bool // sent as the file's own bytes
	}{
		{"scan", "image/jpeg", 1024, 512, big, false},
		{"icon.dat", "image/png", 40, 30, small, true},
		{"Photos/anim", "image/png", 512, 1024, anim, false},
	}
	for _, c := range cases {
		r := readResult(t, e, c.rel)
		if len(r.Images) != 1 {
			t.Fatalf("%s: %d pictures attached, want 1; text %q", c.rel, len(r.Images), r.Text)
		}
		im := r.Images[0]
		sum := sha256.Sum256(c.file)
		if im.Path != c.rel || im.MIME != c.mime || im.Width != c.w || im.Height != c.h || im.Bytes != len(im.Data) || im.SHA256 != hex.EncodeToString(sum[:]) {
			t.Fatalf("%s: picture %+v (data elided), want %s %d×%d", c.rel, Image{Path: im.Path, MIME: im.MIME, Width: im.Width, Height: im.Height, Bytes: im.Bytes, SHA256: im.SHA256}, c.mime, c.w, c.h)
		}
		if c.same != bytes.Equal(im.Data, c.file) {
			t.Fatalf("%s: sent the file's own bytes = %v, want %v", c.rel, !c.same, c.same)
		}
		dec, format, err := image.Decode(bytes.NewReader(im.Data))
		if err != nil || "image/"+format != c.mime || dec.Bounds().Dx() != c.w || dec.Bounds().Dy() != c.h {
			t.Fatalf("%s: the picture sent decodes as %s %v (%v)", c.rel, format, dec.Bounds(), err)
		}
		// Left stays red and right stays blue after the downscale.
		lr, _, lb, _ := dec.At(c.w/4, c.h/2).RGBA()
		rr, _, rb, _ := dec.At(3*c.w/4, c.h/2).RGBA()
		if lr>>8 < 150 || lb>>8 > 90 || rb>>8 < 150 || rr>>8 > 90 {
			t.Fatalf("%s: colours mixed up: left %d/%d, right %d/%d", c.rel, lr>>8, lb>>8, rr>>8, rb>>8)
		}
		if !strings.Contains(r.Text, "The picture is attached") {
			t.Fatalf("%s: text %q", c.rel, r.Text)
		}
	}
	if r := readResult(t, e, "scan"); !strings.Contains(r.Text, "2000×1000 pixels") || !strings.Contains(r.Text, "downscaled to 1024×512") {
		t.Fatalf("text %q should give the size and the downscale", r.Text)
	}
}

func TestFileReadPictureWithoutVision(t *testing.T) {
	e := visionEnv(t, false)
	if err := os.WriteFile(filepath.Join(e.root, "p.png"), encoded(t, "png", testPicture(300, 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := readResult(t, e, "p.png")
	if len(r.Images) != 0 || !containsAll(r.Text, "PNG image", "300 × 200 pixels", "cannot see pictures") {
		t.Fatalf("without vision: %d pictures, text %q", len(r.Images), r.Text)
	}
	// Call (no collector) never claims a picture it cannot deliver.
	e = visionEnv(t, true)
	if err := os.WriteFile(filepath.Join(e.root, "p.png"), encoded(t, "png", testPicture(30, 20)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := e.mustCall("file_read", map[string]any{"path": "p.png"}); strings.Contains(out, "attached") {
		t.Fatalf("Call said %q", out)
	}
}

// pngHeader is a PNG signature and IHDR declaring a w×h canvas, and no
// pixels.
func pngHeader(w, h uint32) []byte {
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6
	chunk := append([]byte("IHDR"), ihdr[:]...)
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	_ = binary.Write(&out, binary.BigEndian, uint32(len(ihdr)))
	out.Write(chunk)
	_ = binary.Write(&out, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return out.Bytes()
}

func TestFileReadHostilePictures(t *testing.T) {
	e := visionEnv(t, true)
	jpg := encoded(t, "jpeg", testPicture(1600, 1200))
	files := map[string][]byte{
		"bomb.png":  pngHeader(100000, 100000), // 10 gigapixels declared in 50 bytes
		"cut.jpg":   jpg[:len(jpg)/3],
		"nopix.png": pngHeader(2000, 2000),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(e.root, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"bomb.png": "too large to decode", "cut.jpg": "could not be decoded", "nopix.png": "could not be decoded"} {
		r := readResult(t, e, name)
		if len(r.Images) != 0 || !strings.Contains(r.Text, want) || strings.Count(r.Text, "\n") > 0 {
			t.Fatalf("%s: %d pictures, text %q; want one line saying %q", name, len(r.Images), r.Text, want)
		}
	}
}
