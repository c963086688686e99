//go:build unix

package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // decoded for vision, sent as PNG
	"image/jpeg"
	"image/png"
	"io"
	"os"
)

// Pictures for vision models: file_read of an image describes it, and,
// when the Box's model can see (Options.Vision) and the caller collects
// attachments (CallResult), also hands over the picture itself, downscaled
// so its longest side is at most MaxImageSide.
const (
	// MaxImageSide is the longest side, in pixels, of a picture sent to
	// the model; larger ones are downscaled and re-encoded.
	MaxImageSide = 1024
	// maxImageFile and maxImagePixels bound what is decoded at all: a
	// picture past them is only described (a small file can declare a huge
	// canvas, which would take gigabytes to decode).
	maxImageFile   = 64 << 20
	maxImagePixels = 50_000_000
	jpegQuality    = 85
)

// Image is a picture handed to the model with a tool result. Data holds
// the encoded picture as sent (MIME says which); Width and Height are its
// size as sent; SHA256 is of the file as read.
type Image struct {
	Path          string
	MIME          string
	Width, Height int
	Bytes         int
	SHA256        string
	Data          []byte
}

// Result is a tool's answer: its text, and the pictures that go with it.
type Result struct {
	Text   string
	Images []Image
}

type attachKey struct{}

type attachments struct{ images []Image }

// CallResult is Call that also returns the pictures a tool attached (only
// file_read of an image attaches one, and only with Options.Vision).
func (b *Box) CallResult(ctx context.Context, name string, args []byte) (Result, error) {
	a := &attachments{}
	text, err := b.Call(context.WithValue(ctx, attachKey{}, a), name, args)
	if err != nil {
		return Result{}, err
	}
	return Result{Text: text, Images: a.images}, nil
}

// imageMIME names the picture formats file_read can show a model, from the
// first bytes of the file (never from its name).
func imageMIME(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	}
	return ""
}

var formatName = map[string]string{"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF"}

// readImage answers file_read of a picture: a description for every model,
// and the picture itself for one that can see.
// noVisionNote ends file_read of a picture for a model that cannot see.
const noVisionNote = "This model cannot see pictures: it gets this description, not the picture."

// canAttach reports whether file_read may hand the picture itself to the
// model: the watcher's model sees, and the caller collects attachments.
func (b *Box) canAttach(ctx context.Context) bool {
	_, collecting := ctx.Value(attachKey{}).(*attachments)
	return b.opts.Vision && collecting
}

func (b *Box) readImage(ctx context.Context, rel string, f *os.File, size int64, mime string) (string, error) {
	desc := fmt.Sprintf("%s is a %s image", shown(rel), formatName[mime])
	collector, collecting := ctx.Value(attachKey{}).(*attachments)
	if !b.opts.Vision || !collecting {
		if cfg, _, err := image.DecodeConfig(io.NewSectionReader(f, 0, size)); err == nil {
			desc += fmt.Sprintf(", %d×%d pixels", cfg.Width, cfg.Height)
		}
		return desc + fmt.Sprintf(", %d bytes.\n%s", size, noVisionNote), nil
	}
	if size > maxImageFile {
		return desc + fmt.Sprintf(" of %d bytes, too large to show (the limit is %d MiB); only this description is available.", size, maxImageFile>>20), nil
	}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, maxImageFile))
	if err != nil {
		return "", describeErr(rel, err)
	}
	sum := sha256.Sum256(data)
	im, note := encodeForModel(data, mime)
	if im == nil {
		return desc + fmt.Sprintf(", %d bytes. %s", len(data), note), nil
	}
	im.Path, im.SHA256 = rel, hex.EncodeToString(sum[:])
	collector.images = append(collector.images, *im)
	return desc + fmt.Sprintf(", %s, %d bytes. The picture is attached%s.", dims(data), len(data), note), nil
}

func dims(data []byte) string {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return "size unknown"
	}
	return fmt.Sprintf("%d×%d pixels", cfg.Width, cfg.Height)
}

// encodeForModel returns the picture to send: the file itself when it is a
// PNG or JPEG within MaxImageSide, else decoded, downscaled and re-encoded
// (JPEG stays JPEG; PNG and GIF become PNG, keeping transparency). A
// picture that cannot be shown returns nil and a sentence saying why.
func encodeForModel(data []byte, mime string) (*Image, string) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, "It could not be read as a picture (" + err.Error() + "); only this description is available."
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxImagePixels {
		return nil, fmt.Sprintf("At %d×%d pixels it is too large to decode; only this description is available.", cfg.Width, cfg.Height)
	}
	if mime != "image/gif" && max(cfg.Width, cfg.Height) <= MaxImageSide {
		return &Image{MIME: mime, Width: cfg.Width, Height: cfg.Height, Bytes: len(data), Data: data}, ""
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, "It could not be decoded (" + err.Error() + "); only this description is available."
	}
	dst := downscale(src, MaxImageSide)
	var buf bytes.Buffer
	outMIME := "image/png"
	if mime == "image/jpeg" {
		outMIME = "image/jpeg"
		err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: jpegQuality})
	} else {
		err = png.Encode(&buf, dst)
	}
	if err != nil {
		return nil, "It could not be re-encoded (" + err.Error() + "); only this description is available."
	}
	w, h := dst.Bounds().Dx(), dst.Bounds().Dy()
	note := ""
	if w != cfg.Width || h != cfg.Height {
		note = fmt.Sprintf(" (downscaled to %d×%d)", w, h)
	}
	return &Image{MIME: outMIME, Width: w, Height: h, Bytes: buf.Len(), Data: buf.Bytes()}, note
}

// fit scales w×h so the longest side is at most maxSide, keeping the
// aspect ratio (and at least one pixel a side).
func fit(w, h, maxSide int) (int, int) {
	if w <= maxSide && h <= maxSide {
		return w, h
	}
	if w >= h {
		return maxSide, max(1, int(int64(h)*int64(maxSide)/int64(w)))
	}
	return max(1, int(int64(w)*int64(maxSide)/int64(h))), maxSide
}

// downscale shrinks src to fit maxSide by averaging the source pixels that
// fall in each destination pixel (a box filter: sharp enough for a model,
// and one pass over the source with memory for the destination only).
func downscale(src image.Image, maxSide int) *image.RGBA {
	r := src.Bounds()
	sw, sh := r.Dx(), r.Dy()
	dw, dh := fit(sw, sh, maxSide)
	sums := make([]uint64, dw*dh*4)
	counts := make([]uint32, dw*dh)
	xmap := make([]int, sw)
	for x := range xmap {
		xmap[x] = int(int64(x) * int64(dw) / int64(sw))
	}
	px := pixelReader(src)
	for y := range sh {
		row := int(int64(y)*int64(dh)/int64(sh)) * dw
		for x := range sw {
			cr, cg, cb, ca := px(r.Min.X+x, r.Min.Y+y)
			i := row + xmap[x]
			s := sums[i*4 : i*4+4 : i*4+4]
			s[0] += uint64(cr)
			s[1] += uint64(cg)
			s[2] += uint64(cb)
			s[3] += uint64(ca)
			counts[i]++
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for i, n := range counts {
		if n == 0 {
			continue
		}
		for k := range 4 {
			dst.Pix[i*4+k] = uint8(sums[i*4+k] / uint64(n) >> 8)
		}
	}
	return dst
}

// pixelReader returns a reader of premultiplied 16-bit RGBA, direct for
// the layouts photos and screenshots decode to (the generic At is an
// interface call and an allocation per pixel).
func pixelReader(src image.Image) func(x, y int) (r, g, b, a uint32) {
	switch m := src.(type) {
	case *image.YCbCr:
		return func(x, y int) (uint32, uint32, uint32, uint32) {
			yi, ci := m.YOffset(x, y), m.COffset(x, y)
			r, g, b := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
			return uint32(r) * 0x101, uint32(g) * 0x101, uint32(b) * 0x101, 0xffff
		}
	case *image.RGBA:
		return func(x, y int) (uint32, uint32, uint32, uint32) {
			p := m.Pix[m.PixOffset(x, y):]
			return uint32(p[0]) * 0x101, uint32(p[1]) * 0x101, uint32(p[2]) * 0x101, uint32(p[3]) * 0x101
		}
	case *image.NRGBA:
		return func(x, y int) (uint32, uint32, uint32, uint32) {
			p := m.Pix[m.PixOffset(x, y):]
			a := uint32(p[3]) * 0x101
			return uint32(p[0]) * 0x101 * a / 0xffff, uint32(p[1]) * 0x101 * a / 0xffff, uint32(p[2]) * 0x101 * a / 0xffff, a
		}
	}
	return func(x, y int) (uint32, uint32, uint32, uint32) { return src.At(x, y).RGBA() }
}
