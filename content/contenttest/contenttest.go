// Package contenttest builds small documents, photos and archives for
// tests, by hand, so no binary test files need to be kept: a PDF with an
// info dictionary, a DOCX with core properties, a JPEG with an EXIF block.
package contenttest

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"strings"
)

// PDF returns a PDF of one page per string, in Helvetica, with an info
// dictionary holding the given entries (Title, Author, CreationDate in
// PDF form like "D:20240315120000Z").
func PDF(pages []string, info map[string]string) []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	catalog := add("") // filled below
	pagesObj := add("")
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, text := range pages {
		var cs strings.Builder
		cs.WriteString("BT /F1 12 Tf 72 720 Td 14 TL\n")
		for _, line := range strings.Split(text, "\n") {
			fmt.Fprintf(&cs, "(%s) Tj T*\n", pdfEscape(line))
		}
		cs.WriteString("ET")
		content := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", cs.Len(), cs.String()))
		page := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pagesObj, font, content))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj)
	objs[pagesObj-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	var inf strings.Builder
	inf.WriteString("<<")
	for k, v := range info {
		fmt.Fprintf(&inf, " /%s (%s)", k, pdfEscape(v))
	}
	inf.WriteString(" >>")
	infoObj := add(inf.String())
	return assemble(objs, fmt.Sprintf("/Root %d 0 R /Info %d 0 R", catalog, infoObj))
}

// LoopPDF returns a PDF whose page tree refers back to itself: the Pages
// node is its own kid, and it claims a million pages.
func LoopPDF() []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 1000000 >>",
	}
	return assemble(objs, "/Root 1 0 R")
}

// assemble writes objects 1..n, the cross-reference table and trailer.
func assemble(objs []string, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailer, xref)
	return b.Bytes()
}

func pdfEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
	return r.Replace(s)
}

// DOCX returns a Word document with one paragraph per string and core
// properties (title, creator, created as an RFC 3339 time; empty ones are
// left out).
func DOCX(paragraphs []string, title, creator, created string) []byte {
	var body strings.Builder
	for _, p := range paragraphs {
		fmt.Fprintf(&body, `<w:p><w:r><w:t xml:space="preserve">%s</w:t></w:r></w:p>`, xmlEscape(p))
	}
	var core strings.Builder
	core.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`)
	if title != "" {
		fmt.Fprintf(&core, "<dc:title>%s</dc:title>", xmlEscape(title))
	}
	if creator != "" {
		fmt.Fprintf(&core, "<dc:creator>%s</dc:creator>", xmlEscape(creator))
	}
	if created != "" {
		fmt.Fprintf(&core, `<dcterms:created xsi:type="dcterms:W3CDTF">%s</dcterms:created>`, created)
	}
	core.WriteString("</cp:coreProperties>")
	return Zip([][2]string{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`},
		{"docProps/core.xml", core.String()},
	})
}

// Zip returns a zip of (name, content) pairs, in order.
func Zip(files [][2]string) []byte {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, f := range files {
		fw, err := w.Create(f[0])
		if err != nil {
			panic(err)
		}
		fw.Write([]byte(f[1]))
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// EXIF says what JPEG puts in its EXIF block; empty fields are left out.
type EXIF struct {
	Make, Model      string
	DateTimeOriginal string // "2006:01:02 15:04:05"
	Orientation      uint16
	Lat, Lon         float64 // written when either is non-zero
}

// JPEG returns a w×h JPEG with an APP1 EXIF segment built from e.
func JPEG(w, h int, e EXIF) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / max(w, 1)), uint8(y * 255 / max(h, 1)), 128, 255})
		}
	}
	var enc bytes.Buffer
	if err := jpeg.Encode(&enc, img, &jpeg.Options{Quality: 80}); err != nil {
		panic(err)
	}
	raw := enc.Bytes()
	tiff := exifTIFF(e)
	app1 := append([]byte("Exif\x00\x00"), tiff...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(app1)+2))
	seg = append(seg, app1...)
	out := append([]byte{}, raw[:2]...) // SOI
	out = append(out, seg...)
	return append(out, raw[2:]...)
}

// ifdBuilder lays out one IFD whose out-of-line values follow it.
type ifdBuilder struct {
	entries [][12]byte
	data    []byte
	fixups  []int // entries whose value offset is relative to data
}

func (b *ifdBuilder) add(tag, typ uint16, count uint32, val []byte) {
	var e [12]byte
	binary.BigEndian.PutUint16(e[0:], tag)
	binary.BigEndian.PutUint16(e[2:], typ)
	binary.BigEndian.PutUint32(e[4:], count)
	if len(val) <= 4 {
		copy(e[8:], val)
	} else {
		binary.BigEndian.PutUint32(e[8:], uint32(len(b.data)))
		b.data = append(b.data, val...)
		if len(b.data)%2 == 1 {
			b.data = append(b.data, 0)
		}
		b.fixups = append(b.fixups, len(b.entries))
	}
	b.entries = append(b.entries, e)
}

func (b *ifdBuilder) ascii(tag uint16, s string) {
	v := append([]byte(s), 0)
	b.add(tag, 2, uint32(len(v)), v)
}

// bytesAt lays out the IFD at offset base of the TIFF block.
func (b *ifdBuilder) bytesAt(base int) []byte {
	size := 2 + 12*len(b.entries) + 4
	for _, i := range b.fixups {
		off := binary.BigEndian.Uint32(b.entries[i][8:])
		binary.BigEndian.PutUint32(b.entries[i][8:], off+uint32(base+size))
	}
	out := binary.BigEndian.AppendUint16(nil, uint16(len(b.entries)))
	for _, e := range b.entries {
		out = append(out, e[:]...)
	}
	out = append(out, 0, 0, 0, 0)
	return append(out, b.data...)
}

func (b *ifdBuilder) len() int { return 2 + 12*len(b.entries) + 4 + len(b.data) }

func rationals(deg float64) []byte {
	if deg < 0 {
		deg = -deg
	}
	d := uint32(deg)
	m := uint32((deg - float64(d)) * 60)
	s := (deg - float64(d) - float64(m)/60) * 3600
	var out []byte
	for _, v := range [][2]uint32{{d, 1}, {m, 1}, {uint32(s * 1000), 1000}} {
		out = binary.BigEndian.AppendUint32(out, v[0])
		out = binary.BigEndian.AppendUint32(out, v[1])
	}
	return out
}

// exifTIFF builds a big-endian TIFF block: IFD0 (make, model,
// orientation, pointers), the EXIF IFD and the GPS IFD.
func exifTIFF(e EXIF) []byte {
	var exif, gps ifdBuilder
	if e.DateTimeOriginal != "" {
		exif.ascii(0x9003, e.DateTimeOriginal)
	}
	hasGPS := e.Lat != 0 || e.Lon != 0
	if hasGPS {
		ns, ew := "N", "E"
		if e.Lat < 0 {
			ns = "S"
		}
		if e.Lon < 0 {
			ew = "W"
		}
		gps.add(1, 2, 2, []byte(ns+"\x00"))
		gps.add(2, 5, 3, rationals(e.Lat))
		gps.add(3, 2, 2, []byte(ew+"\x00"))
		gps.add(4, 5, 3, rationals(e.Lon))
	}
	// IFD0's size depends on which entries it has; lay it out twice.
	build := func(exifOff, gpsOff uint32) ifdBuilder {
		var b ifdBuilder
		if e.Make != "" {
			b.ascii(0x010F, e.Make)
		}
		if e.Model != "" {
			b.ascii(0x0110, e.Model)
		}
		if e.Orientation != 0 {
			b.add(0x0112, 3, 1, binary.BigEndian.AppendUint16(nil, e.Orientation))
		}
		b.add(0x8769, 4, 1, binary.BigEndian.AppendUint32(nil, exifOff))
		if hasGPS {
			b.add(0x8825, 4, 1, binary.BigEndian.AppendUint32(nil, gpsOff))
		}
		return b
	}
	ifd0 := build(0, 0)
	exifOff := uint32(8 + ifd0.len())
	gpsOff := exifOff + uint32(exif.len())
	ifd0 = build(exifOff, gpsOff)
	out := []byte("MM\x00\x2a\x00\x00\x00\x08")
	out = append(out, ifd0.bytesAt(8)...)
	out = append(out, exif.bytesAt(int(exifOff))...)
	if hasGPS {
		out = append(out, gps.bytesAt(int(gpsOff))...)
	}
	return out
}
