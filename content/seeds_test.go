package content

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tend-agent/tend/content/contenttest"
)

// TestWriteFuzzSeeds (re)writes the committed seed corpus of FuzzExtract
// under testdata/fuzz when TEND_WRITE_FUZZ_SEEDS is set; the files are
// small and made here, so no real documents are kept.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("TEND_WRITE_FUZZ_SEEDS") == "" {
		t.Skip("set TEND_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz/FuzzExtract")
	}
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "d/", Typeflag: tar.TypeDir})
	tw.WriteHeader(&tar.Header{Name: "d/l", Typeflag: tar.TypeSymlink, Linkname: "../x"})
	tw.WriteHeader(&tar.Header{Name: "d/f", Size: 3})
	tw.Write([]byte("abc"))
	tw.Close()
	gz.Close()
	seeds := map[string][]byte{
		"pdf-two-pages": contenttest.PDF([]string{"one\ntwo", "three"}, map[string]string{"Title": "T", "Author": "A", "CreationDate": "D:20200102030405-05'00'"}),
		"pdf-loop":      contenttest.LoopPDF(),
		"docx":          contenttest.DOCX([]string{"a", "b"}, "t", "c", "2020-01-01T00:00:00Z"),
		"xlsx":          makeXLSX(t),
		"jpeg-exif":     contenttest.JPEG(8, 8, contenttest.EXIF{Make: "M", DateTimeOriginal: "2020:01:02 03:04:05", Orientation: 8, Lat: 10, Lon: -20}),
		"targz":         tgz.Bytes(),
		"rtf":           []byte(`{\rtf1\ansi{\fonttbl{\f0 T;}}\f0 x\'e9\u8364?\par y}`),
		"html":          []byte("<!doctype html><title>t</title><p>x<td>y</p>"),
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzExtract")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range seeds {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
