package tray

import (
	"bytes"
	"image/png"
	"testing"
)

func TestIcons(t *testing.T) {
	seen := map[string]Overall{}
	for _, st := range []Overall{Watching, Running, Paused, Failing} {
		b := Icon(st)
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s icon: %v", st, err)
		}
		if r := img.Bounds(); r.Dx() != IconSize || r.Dy() != IconSize {
			t.Errorf("%s icon is %v", st, r)
		}
		if other, dup := seen[string(b)]; dup {
			t.Errorf("%s and %s icons are the same", st, other)
		}
		seen[string(b)] = st
		if len(b) > 4096 {
			t.Errorf("%s icon is %d bytes; keep it small", st, len(b))
		}
	}
}
