package packaging

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"testing"

	"github.com/tend-agent/tend/internal/icns"
	"github.com/tend-agent/tend/tray"
)

// TestTendIcns checks that Tend.icns holds, at every size macOS asks for,
// exactly the picture the tray draws. `go generate ./packaging` (or this
// test with -update) draws it again.
func TestTendIcns(t *testing.T) {
	if *update {
		var buf bytes.Buffer
		if err := icns.Encode(&buf, tray.AppIcon); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("Tend.icns", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile("Tend.icns")
	if err != nil {
		t.Fatalf("reading Tend.icns (run `go generate ./packaging` to draw it): %v", err)
	}
	chunks, err := icns.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != len(icns.Types) {
		t.Fatalf("Tend.icns has %d images, want %d", len(chunks), len(icns.Types))
	}
	drawn := map[int]image.Image{}
	for i, c := range chunks {
		want := icns.Types[i]
		if c.Type != want.Type {
			t.Errorf("image %d is %q, want %q", i, c.Type, want.Type)
			continue
		}
		img, err := png.Decode(bytes.NewReader(c.Data))
		if err != nil {
			t.Errorf("%s: %v", c.Type, err)
			continue
		}
		if drawn[want.Side] == nil {
			drawn[want.Side] = tray.AppIcon(want.Side)
		}
		if !samePixels(img, drawn[want.Side]) {
			t.Errorf("%s (%d px) differs from the tray's drawing: run `go generate ./packaging`", c.Type, want.Side)
		}
	}
}

func samePixels(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				ar, ag, ab, aa := a.At(x, y).RGBA()
				br, bg, bb, ba := b.At(x, y).RGBA()
				if ar != br || ag != bg || ab != bb || aa != ba {
					return false
				}
			}
		}
	}
	return true
}
