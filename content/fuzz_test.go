package content

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tend-agent/tend/content/contenttest"
)

// Each extractor is fuzzed. CI runs the seeds (testdata/fuzz and the
// f.Add calls); `go test -fuzz=FuzzX ./content` searches further. The
// parsers written here are called without Extract's recover, so a panic
// in them is found; the PDF reader (a library that panics on bad input by
// design) is fuzzed through Extract, which must turn that into Failed.

func checkResult(t *testing.T, r Result) {
	if strings.Contains(r.Failed, "\n") && !debugPanics {
		t.Fatalf("failure not one line: %q", r.Failed)
	}
	if len(r.Text) > MaxText {
		t.Fatalf("text of %d bytes, more than %d", len(r.Text), MaxText)
	}
	for _, m := range r.Meta {
		if strings.ContainsAny(m.Value, "\n\r") {
			t.Fatalf("metadata %s spans lines: %q", m.Name, m.Value)
		}
	}
}

func FuzzExtract(f *testing.F) {
	f.Add(contenttest.PDF([]string{"a b c"}, map[string]string{"Title": "x", "CreationDate": "D:2020"}))
	f.Add(contenttest.LoopPDF())
	f.Add(contenttest.DOCX([]string{"p"}, "t", "c", "2020-01-01T00:00:00Z"))
	f.Add([]byte(`{\rtf1 hi\par}`))
	f.Add([]byte("<html><title>t</title><p>x</p></html>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		old := debugPanics
		debugPanics = false
		defer func() { debugPanics = old }()
		checkResult(t, Extract(bytes.NewReader(b), int64(len(b))))
	})
}

func FuzzPDFDate(f *testing.F) {
	for _, s := range []string{"D:20230517093000+02'00'", "D:2023", "D:20231301", "Z", "D:99999999999999-99'99'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pdfDate(s)
	})
}

func FuzzZipContainer(f *testing.F) {
	f.Add(contenttest.DOCX([]string{"p"}, "t", "c", ""))
	f.Add(contenttest.Zip([][2]string{{"mimetype", mimeODS}, {"content.xml", `<t:table xmlns:t="t"><t:table-row><t:table-cell t:number-columns-repeated="9"><p>x</p></t:table-cell></t:table-row></t:table>`}}))
	f.Add(contenttest.Zip([][2]string{{"ppt/presentation.xml", "<p/>"}, {"ppt/slides/slide1.xml", "<a:t xmlns:a='a'>x</a:t>"}}))
	f.Add(contenttest.Zip([][2]string{{"mimetype", "application/vnd.oasis.opendocument.text"}, {"content.xml", "<p>x</p>"}, {"meta.xml", "<title>t</title>"}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Result
		readZipContainer(bytes.NewReader(b), int64(len(b)), &r)
		checkResult(t, r)
	})
}

func FuzzArchiveListing(f *testing.F) {
	f.Add(contenttest.Zip([][2]string{{"a", "b"}, {"c/d", ""}}), false)
	f.Add([]byte("PK\x05\x06\x00\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), false)
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0}, true)
	f.Fuzz(func(t *testing.T, b []byte, gz bool) {
		var r Result
		listZip(bytes.NewReader(b), int64(len(b)), &r)
		checkResult(t, r)
		r = Result{}
		listTar(bytes.NewReader(b), &r, gz)
		checkResult(t, r)
	})
}

func FuzzRTF(f *testing.F) {
	f.Add(`{\rtf1\ansi{\fonttbl{\f0 T;}}\f0 Caf\'e9 \u8364? x\par}`)
	f.Add(`{\*\x{{{\'`)
	f.Fuzz(func(t *testing.T, s string) {
		out, _ := rtfText(strings.NewReader(s))
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8: %q", out)
		}
	})
}

func FuzzHTML(f *testing.F) {
	f.Add("<html><head><title>T</title><script>x</script></head><body><p>a<b>b</b></p><td>c</td></body></html>")
	f.Add("<svg><script></svg>")
	f.Fuzz(func(t *testing.T, s string) {
		var r Result
		readHTML(strings.NewReader(s), &r)
		checkResult(t, r)
	})
}

func FuzzImage(f *testing.F) {
	f.Add(contenttest.JPEG(4, 4, contenttest.EXIF{Make: "m", Model: "x", DateTimeOriginal: "2020:01:02 03:04:05", Orientation: 3, Lat: -1.5, Lon: 2.25}))
	f.Add([]byte("\xff\xd8\xff\xe1\x00\x10Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := Result{MIME: "image/jpeg"}
		readImage(bytes.NewReader(b), int64(len(b)), &r)
		checkResult(t, r)
		r = Result{MIME: "image/tiff"}
		if len(b) > 6 {
			readImage(bytes.NewReader(b[6:]), int64(len(b)-6), &r)
		}
		checkResult(t, r)
	})
}

func FuzzMedia(f *testing.F) {
	wav := []byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x44\xac\x00\x00\x88\x58\x01\x00\x02\x00\x10\x00data\x00\x00\x01\x00")
	f.Add(wav)
	f.Add(append([]byte("fLaC\x00\x00\x00\x22"), make([]byte, 34)...))
	f.Add([]byte("\x00\x00\x00\x10ftypisom\x00\x00\x00\x00\x00\x00\x00\x10moov\x00\x00\x00\x08mvhd"))
	f.Add([]byte("ID3\x03\x00\x00\x00\x00\x00\x10TIT2\x00\x00\x00\x02\x00\x00\x00x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := Result{MIME: "audio/mpeg"}
		readMedia(bytes.NewReader(b), int64(len(b)), &r)
		checkResult(t, r)
		mediaDuration(bytes.NewReader(b), int64(len(b)), "")
	})
}

var _ = io.EOF
