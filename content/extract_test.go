package content

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"strings"
	"testing"

	"github.com/tend-agent/tend/content/contenttest"
)

// envMisbehave makes the extraction child of this test binary misbehave
// on purpose, under the real limits, to test that they hold.
const envMisbehave = "TEND_CONTENT_TEST_MISBEHAVE"

func TestMain(m *testing.M) {
	if how := os.Getenv(envMisbehave); how != "" && os.Getenv(EnvExtract) != "" {
		applyChildLimits()
		misbehave(how)
	}
	RunChildIfAsked()
	debugPanics = true
	os.Exit(m.Run())
}

var sink [][]byte

func misbehave(how string) {
	switch how {
	case "memory":
		for {
			b := make([]byte, 64<<20)
			for i := range b {
				b[i] = 1
			}
			sink = append(sink, b)
		}
	case "hang":
		select {}
	case "flood":
		b := bytes.Repeat([]byte("x"), 1<<20)
		for {
			os.Stdout.Write(b)
		}
	}
}

func extractBytes(b []byte) Result { return Extract(bytes.NewReader(b), int64(len(b))) }

func wantField(t *testing.T, r Result, name, want string) {
	t.Helper()
	if got := r.Get(name); got != want {
		t.Errorf("%s: %q, want %q (result %+v)", name, got, want, r)
	}
}

func TestPDFTextAndInfo(t *testing.T) {
	for _, poppler := range []bool{false, true} {
		if poppler && !hasPdftotext() {
			continue
		}
		t.Run(map[bool]string{false: "go", true: "pdftotext"}[poppler], func(t *testing.T) {
			if !poppler { // read by the child at its start
				t.Setenv("TEND_CONTENT_NO_PDFTOTEXT", "1")
			}
			b := contenttest.PDF([]string{"INVOICE 4711\nTotal due: 120.00 EUR", "Second page text"},
				map[string]string{"Title": "Invoice 4711", "Author": "ACME GmbH", "CreationDate": "D:20230517093000+02'00'"})
			f := writeTemp(t, b)
			r := Run(t.Context(), f, int64(len(b)), DefaultLimits)
			if r.Failed != "" {
				t.Fatal(r.Failed)
			}
			if r.Kind != "PDF document" || r.MIME != "application/pdf" {
				t.Fatalf("kind %q mime %q", r.Kind, r.MIME)
			}
			wantField(t, r, "pages", "2")
			wantField(t, r, "title", "Invoice 4711")
			wantField(t, r, "author", "ACME GmbH")
			wantField(t, r, "created", "2023-05-17T09:30:00+02:00")
			for _, s := range []string{"--- page 1 ---", "INVOICE 4711", "Total due: 120.00 EUR", "--- page 2 ---", "Second page text"} {
				if !strings.Contains(r.Text, s) {
					t.Errorf("text lacks %q:\n%s", s, r.Text)
				}
			}
		})
	}
}

func hasPdftotext() bool {
	_, err := os.Stat("/usr/bin/pdftotext")
	return err == nil
}

func writeTemp(t testing.TB, b []byte) *os.File {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "doc")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestDOCX(t *testing.T) {
	r := extractBytes(contenttest.DOCX([]string{"Service contract", "Signed on 3 March 2021 in Berlin."}, "Contract", "Jane Roe", "2021-03-03T10:00:00Z"))
	if r.MIME != mimeDOCX || r.Failed != "" {
		t.Fatalf("%+v", r)
	}
	wantField(t, r, "title", "Contract")
	wantField(t, r, "author", "Jane Roe")
	wantField(t, r, "created", "2021-03-03T10:00:00Z")
	if r.Text != "Service contract\nSigned on 3 March 2021 in Berlin." {
		t.Fatalf("text %q", r.Text)
	}
}

func TestODTAndPPTXAndODS(t *testing.T) {
	odt := contenttest.Zip([][2]string{
		{"mimetype", "application/vnd.oasis.opendocument.text"},
		{"content.xml", `<office:document-content xmlns:office="o" xmlns:text="t"><office:body><office:text><text:h>Minutes</text:h><text:p>Meeting<text:s/>held <text:span>today</text:span>.</text:p></office:text></office:body></office:document-content>`},
		{"meta.xml", `<office:document-meta xmlns:office="o" xmlns:meta="m" xmlns:dc="d"><office:meta><dc:title>Minutes</dc:title><meta:initial-creator>Bob</meta:initial-creator><meta:creation-date>2020-01-02T03:04:05</meta:creation-date></office:meta></office:document-meta>`},
	})
	r := extractBytes(odt)
	if r.Kind != "OpenDocument text (ODT)" || r.Text != "Minutes\nMeeting held today." {
		t.Fatalf("odt: %+v", r)
	}
	wantField(t, r, "author", "Bob")
	wantField(t, r, "created", "2020-01-02T03:04:05")

	pptx := contenttest.Zip([][2]string{
		{"ppt/presentation.xml", `<p:presentation xmlns:p="p"/>`},
		{"ppt/slides/slide10.xml", `<p:sld xmlns:p="p" xmlns:a="a"><a:p><a:r><a:t>Tenth</a:t></a:r></a:p></p:sld>`},
		{"ppt/slides/slide2.xml", `<p:sld xmlns:p="p" xmlns:a="a"><a:p><a:r><a:t>Second</a:t></a:r></a:p></p:sld>`},
	})
	r = extractBytes(pptx)
	if r.MIME != mimePPTX || r.Text != "--- slide 2 ---\nSecond\n--- slide 10 ---\nTenth\n" {
		t.Fatalf("pptx: %+v", r)
	}

	ods := contenttest.Zip([][2]string{
		{"mimetype", mimeODS},
		{"content.xml", `<d xmlns:table="t" xmlns:text="x"><table:table table:name="Q1"><table:table-row><table:table-cell><text:p>Item</text:p></table:table-cell><table:table-cell><text:p>Price</text:p></table:table-cell><table:table-cell table:number-columns-repeated="16380"/></table:table-row><table:table-row><table:table-cell table:number-columns-repeated="2"><text:p>x</text:p></table:table-cell><table:table-cell><text:p>y</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell><text:p>Tea</text:p></table:table-cell><table:table-cell><text:p>3.50</text:p></table:table-cell></table:table-row></table:table></d>`},
	})
	r = extractBytes(ods)
	if r.MIME != mimeODS || r.Text != "--- sheet Q1 ---\n| Item | Price |\n| x | x | y |\n| Tea | 3.50 |\n" {
		t.Fatalf("ods: %+v\n%s", r, r.Text)
	}
}

func TestXLSX(t *testing.T) {
	b := makeXLSX(t)
	r := extractBytes(b)
	if r.MIME != mimeXLSX || r.Failed != "" {
		t.Fatalf("%+v", r)
	}
	if !strings.Contains(r.Text, "--- sheet Sheet1 ---\n| Name | Amount |\n| Rent | 900 |") {
		t.Fatalf("text %q", r.Text)
	}
}

func TestRTFAndHTML(t *testing.T) {
	rtf := `{\rtf1\ansi{\fonttbl{\f0 Times;}}{\info{\title Secret}}\f0 Dear Sir,\par Caf\'e9 costs 5\u8364? today.\par}`
	r := extractBytes([]byte(rtf))
	if r.Kind != "RTF document" || r.Text != "Dear Sir,\nCafé costs 5€ today." {
		t.Fatalf("rtf: %+v", r)
	}
	page := `<!DOCTYPE html><html><head><title>Order 12</title><style>p{}</style><script>var x=1</script></head><body><h1>Order</h1><p>Shipped on <b>2 May</b>.</p></body></html>`
	r = extractBytes([]byte(page))
	if r.Kind != "HTML page" || r.Text != "Order\n\nShipped on 2 May." {
		t.Fatalf("html: %+v %q", r, r.Text)
	}
	wantField(t, r, "title", "Order 12")
}

func TestJPEGExif(t *testing.T) {
	b := contenttest.JPEG(64, 48, contenttest.EXIF{Make: "Canon", Model: "EOS 5D", DateTimeOriginal: "2019:07:14 16:20:00", Orientation: 6, Lat: 48.858222, Lon: -2.2945})
	r := extractBytes(b)
	wantField(t, r, "dimensions", "64 × 48 pixels")
	wantField(t, r, "date taken", "2019-07-14T16:20:00")
	wantField(t, r, "camera", "Canon EOS 5D")
	wantField(t, r, "orientation", "rotated 90° clockwise")
	wantField(t, r, "gps position", "48.858222, -2.294500")
}

func TestArchives(t *testing.T) {
	var files [][2]string
	for i := range 300 {
		files = append(files, [2]string{strings.Repeat("d/", i%3) + "f" + string(rune('a'+i%26)) + ".txt", strings.Repeat("x", i)})
	}
	r := extractBytes(contenttest.Zip(files))
	if r.Kind != "zip archive" || !strings.Contains(r.Text, "fa.txt (0 B)") || !strings.Contains(r.Text, "… 100 more entries not listed") {
		t.Fatalf("zip: %+v", r)
	}
	wantField(t, r, "entries", "300")

	var tb bytes.Buffer
	gz := gzip.NewWriter(&tb)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "docs/", Typeflag: tar.TypeDir, Mode: 0o755})
	tw.WriteHeader(&tar.Header{Name: "docs/a.txt", Size: 5, Mode: 0o644})
	tw.Write([]byte("hello"))
	tw.Close()
	gz.Close()
	r = extractBytes(tb.Bytes())
	if r.Kind != "compressed tar archive (tar.gz)" || r.Text != "docs/\ndocs/a.txt (5 B)\n" {
		t.Fatalf("tar.gz: %+v", r)
	}
}

func TestUnknownAndText(t *testing.T) {
	r := extractBytes([]byte{0, 1, 2, 3, 0xff, 0xfe, 0})
	if r.MIME != "application/octet-stream" || r.Text != "" || r.Size != 7 {
		t.Fatalf("%+v", r)
	}
	r = extractBytes([]byte("plain words\n"))
	if !r.Textual || r.Text != "plain words\n" {
		t.Fatalf("%+v", r)
	}
}

// A PDF whose cross-reference table points nowhere: the Go reader gives
// up, poppler rebuilds the table, and its text is used.
func TestDamagedPDFReadByPoppler(t *testing.T) {
	if !hasPdftotext() {
		t.Skip("pdftotext (poppler-utils) is not installed")
	}
	b := contenttest.PDF([]string{"Receipt 2024-02-29 paid"}, nil)
	i := bytes.LastIndex(b, []byte("startxref\n"))
	b = append(b[:i:i], []byte("startxref\n999999\n%%EOF\n")...)
	t.Run("go", func(t *testing.T) {
		t.Setenv("TEND_CONTENT_NO_PDFTOTEXT", "1")
		if r := Run(t.Context(), writeTemp(t, b), int64(len(b)), DefaultLimits); r.Failed == "" {
			t.Fatalf("the Go reader read the damaged PDF; the test needs one it cannot: %+v", r)
		}
	})
	r := Run(t.Context(), writeTemp(t, b), int64(len(b)), DefaultLimits)
	if r.Failed != "" || !strings.Contains(r.Text, "Receipt 2024-02-29 paid") {
		t.Fatalf("%+v", r)
	}
}
