package icns

import (
	"bytes"
	"image"
	"image/color"
	"strings"
	"testing"
)

func square(side int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	img.Set(side/2, side/2, color.NRGBA{255, 0, 0, 255})
	return img
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, square); err != nil {
		t.Fatal(err)
	}
	chunks, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != len(Types) {
		t.Fatalf("%d chunks, want %d", len(chunks), len(Types))
	}
	for i, c := range chunks {
		if c.Type != Types[i].Type || !bytes.HasPrefix(c.Data, []byte("\x89PNG")) {
			t.Errorf("chunk %d: %q, data starts %q", i, c.Type, c.Data[:4])
		}
	}
}

func TestEncodeRefusesWrongSize(t *testing.T) {
	err := Encode(&bytes.Buffer{}, func(int) image.Image { return square(10) })
	if err == nil || !strings.Contains(err.Error(), "icp4 wants 16×16") {
		t.Errorf("err = %v", err)
	}
}

func TestDecodeRefusesDamage(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, square); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	for name, data := range map[string][]byte{
		"empty":     nil,
		"no magic":  append([]byte("icnx"), good[4:]...),
		"truncated": good[:len(good)-3],
		"bad chunk": append(append([]byte{}, good[:12]...), append([]byte{0xff, 0xff, 0xff, 0xff}, good[16:]...)...),
	} {
		if _, err := Decode(data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
