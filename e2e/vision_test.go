package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/watchers"
)

// gradient is a w×h picture whose colour changes across and down, so a
// picture sent upside down or cropped would show.
func gradient(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetRGBA(x, y, color.RGBA{R: uint8(255 * x / w), G: uint8(255 * y / h), B: 128, A: 255})
		}
	}
	return m
}

// looker reads both pictures in its first turn, then says what it saw.
func looker(r modeltest.Request) modeltest.Response {
	for _, m := range r.Messages {
		if m.Role == "tool" {
			return modeltest.Text("A photo and a scan.")
		}
	}
	return modeltest.Calls(modeltest.Call("file_read", `{"path":"photo.png"}`), modeltest.Call("file_read", `{"path":"scan.jpg"}`))
}

// A vision model gets the pictures file_read reads, through the daemon and
// each provider's real client: a small PNG as it is, a large JPEG
// downscaled to 1024 px. The history keeps their references only. A model
// that cannot see gets a description saying so.
func TestVisionModelSeesPictures(t *testing.T) {
	t.Parallel()
	vision := modeltest.Model{Name: "qwen2.5vl:7b", Capabilities: []string{"completion", "tools", "vision"}}
	cases := []struct {
		name     string
		server   func(t *testing.T) *modeltest.Server
		provider func(*modeltest.Server) watchers.Provider
		sees     bool
	}{
		{"ollama", func(t *testing.T) *modeltest.Server {
			return modeltest.NewOllama(t, looker, modeltest.WithModels(vision))
		}, func(s *modeltest.Server) watchers.Provider {
			return watchers.Provider{Kind: "ollama", Model: vision.Name, BaseURL: s.URL}
		}, true},
		{"openai", func(t *testing.T) *modeltest.Server {
			return modeltest.NewOpenAI(t, looker, modeltest.WithKey(""))
		}, func(s *modeltest.Server) watchers.Provider {
			return watchers.Provider{Kind: "openai", Model: "gpt-test", BaseURL: s.URL + "/v1", Vision: true}
		}, true},
		{"ollama text model", func(t *testing.T) *modeltest.Server {
			return modeltest.NewOllama(t, looker)
		}, ollama, false},
		{"openai without vision", func(t *testing.T) *modeltest.Server {
			return modeltest.NewOpenAI(t, looker, modeltest.WithKey(""))
		}, func(s *modeltest.Server) watchers.Provider {
			return watchers.Provider{Kind: "openai", Model: "gpt-test", BaseURL: s.URL + "/v1"}
		}, false},
	}
	var pngBuf, jpgBuf bytes.Buffer
	if err := png.Encode(&pngBuf, gradient(300, 200)); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&jpgBuf, gradient(1600, 1200), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tc.server(t)
			e := start(t, envOptions{})
			dir := t.TempDir()
			e.add(watchers.Definition{Name: "photos", Path: dir, Instructions: "Describe new pictures.", Provider: tc.provider(srv)})
			if err := os.WriteFile(filepath.Join(dir, "photo.png"), pngBuf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "scan.jpg"), jpgBuf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			runs := e.waitRuns("photos", 1)
			if r := runs[0]; r.End.Outcome != dispatch.OutcomeDone {
				t.Fatalf("run ended %s:%s", r.End.Outcome, describe(runs))
			}
			var got [][]byte
			var after modeltest.Request
			for _, r := range srv.Requests() {
				for _, m := range r.Messages {
					if m.Role == "tool" {
						after = r
					}
				}
			}
			var texts []string
			for _, m := range after.Messages {
				got = append(got, m.Images...)
				if m.Role == "tool" {
					texts = append(texts, m.Content)
				}
			}
			if len(texts) != 2 {
				t.Fatalf("%d tool results reached the model, want 2:%s", len(texts), describe(runs))
			}
			if !tc.sees {
				if len(got) != 0 || !strings.Contains(texts[0], "cannot see pictures") || !strings.Contains(texts[1], "1600 × 1200 pixels") {
					t.Fatalf("a model that cannot see got %d pictures and %q", len(got), texts)
				}
				return
			}
			if len(got) != 2 {
				t.Fatalf("the stand-in received %d pictures, want 2 (tool results %q)", len(got), texts)
			}
			if !bytes.Equal(got[0], pngBuf.Bytes()) {
				t.Fatalf("the PNG arrived changed (%d bytes, sent %d)", len(got[0]), pngBuf.Len())
			}
			m, format, err := image.Decode(bytes.NewReader(got[1]))
			if err != nil || format != "jpeg" || m.Bounds().Dx() != 1024 || m.Bounds().Dy() != 768 {
				t.Fatalf("the JPEG arrived as %s %v (%v), want a 1024×768 jpeg", format, m.Bounds(), err)
			}
			// Top-left dark red-free, bottom-right red and green: not flipped.
			r0, g0, _, _ := m.At(5, 5).RGBA()
			r1, g1, _, _ := m.At(1018, 762).RGBA()
			if r0>>8 > 30 || g0>>8 > 30 || r1>>8 < 220 || g1>>8 < 220 {
				t.Fatalf("the downscaled picture is not the original: corners %d,%d and %d,%d", r0>>8, g0>>8, r1>>8, g1>>8)
			}
			var refs []dispatch.Image
			for _, rec := range toolRecords(runs[0]) {
				refs = append(refs, rec.Images...)
			}
			sum := sha256.Sum256(jpgBuf.Bytes())
			if len(refs) != 2 || refs[1].Path != "scan.jpg" || refs[1].SHA256 != hex.EncodeToString(sum[:]) || refs[1].Width != 1024 || refs[1].Data != nil {
				t.Fatalf("history picture references %+v", refs)
			}
		})
	}
}
