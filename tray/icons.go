package tray

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"sync"
)

// IconSize is the side of the drawn icons in pixels; tray hosts scale.
const IconSize = 32

// icons holds one PNG per overall state, drawn the first time an icon is
// asked for: every tend process links this package, but only the tray
// needs the pictures (the PNG encoder's buffers cost megabytes).
var (
	iconsOnce sync.Once
	icons     map[Overall][]byte
)

// Icon returns the PNG for a state.
func Icon(st Overall) []byte {
	iconsOnce.Do(func() {
		icons = map[Overall][]byte{}
		for _, s := range []Overall{Watching, Running, Paused, Failing} {
			icons[s] = encodeIcon(drawIcon(s, IconSize))
		}
	})
	if b, ok := icons[st]; ok {
		return b
	}
	return icons[Watching]
}

var iconColors = map[Overall]color.NRGBA{
	Watching: {0x2e, 0x9d, 0x57, 0xff},
	Running:  {0x2f, 0x6f, 0xd6, 0xff},
	Paused:   {0x80, 0x88, 0x90, 0xff},
	Failing:  {0xd2, 0x3c, 0x3c, 0xff},
}

// drawIcon paints a disc in the state's colour with a white glyph: a ring
// (watching), a play triangle (running), two bars (paused), an
// exclamation mark (error). Each pixel is supersampled 4×4.
func drawIcon(st Overall, size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	bg := iconColors[st]
	const ss = 4
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			var disc, glyph int
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					// u, v in [-1, 1]
					u := (float64(x)+(float64(sx)+0.5)/ss)/float64(size)*2 - 1
					v := (float64(y)+(float64(sy)+0.5)/ss)/float64(size)*2 - 1
					if math.Hypot(u, v) <= 0.94 {
						disc++
						if inGlyph(st, u, v) {
							glyph++
						}
					}
				}
			}
			if disc == 0 {
				continue
			}
			n := float64(ss * ss)
			g := float64(glyph) / float64(disc)
			mix := func(c uint8) uint8 { return uint8(math.Round(float64(c)*(1-g) + 255*g)) }
			img.SetNRGBA(x, y, color.NRGBA{mix(bg.R), mix(bg.G), mix(bg.B), uint8(math.Round(255 * float64(disc) / n))})
		}
	}
	return img
}

func inGlyph(st Overall, u, v float64) bool {
	switch st {
	case Watching:
		r := math.Hypot(u, v)
		return r >= 0.30 && r <= 0.52
	case Running:
		// triangle pointing right: x from -0.3 to 0.45
		if u < -0.28 || u > 0.48 {
			return false
		}
		half := 0.45 * (0.48 - u) / 0.76
		return math.Abs(v) <= half
	case Paused:
		inBar := func(c float64) bool { return math.Abs(u-c) <= 0.12 }
		return math.Abs(v) <= 0.45 && (inBar(-0.22) || inBar(0.22))
	case Failing:
		if math.Abs(u) > 0.12 {
			return false
		}
		return (v >= -0.55 && v <= 0.18) || (v >= 0.34 && v <= 0.55)
	}
	return false
}

func encodeIcon(img image.Image) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil // cannot happen for an in-memory NRGBA
	}
	return buf.Bytes()
}

// AppIcon is the application's icon at side×side pixels: the tray's
// "watching" picture, so the app and its menu-bar icon look alike.
// packaging/Tend.icns is drawn from it.
func AppIcon(side int) image.Image { return drawIcon(Watching, side) }
