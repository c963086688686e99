package content

import (
	"archive/zip"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// readZipContainer tells office documents from plain zip archives by what
// is inside, then reads or lists them.
func readZipContainer(r io.ReaderAt, size int64, res *Result) error {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		// Not readable as a whole (too many entries, damaged): a bounded
		// listing of the central directory still says what it holds.
		res.Kind, res.MIME = "zip archive", "application/zip"
		return listZip(r, size, res)
	}
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	odf := ""
	if f := files["mimetype"]; f != nil {
		b, _ := readMember(f, 200)
		odf = strings.TrimSpace(string(b))
	}
	switch {
	case files["word/document.xml"] != nil:
		res.Kind, res.MIME = kinds[mimeDOCX], mimeDOCX
		ooxmlCore(files, res)
		res.Text, err = xmlText(files["word/document.xml"], docxRules)
	case files["ppt/presentation.xml"] != nil:
		res.Kind, res.MIME = kinds[mimePPTX], mimePPTX
		ooxmlCore(files, res)
		err = readPPTX(zr, res)
	case files["xl/workbook.xml"] != nil:
		res.Kind, res.MIME = kinds[mimeXLSX], mimeXLSX
		ooxmlCore(files, res)
		err = readXLSX(r, size, res)
	case strings.HasPrefix(odf, "application/vnd.oasis.opendocument.") && files["content.xml"] != nil:
		res.MIME = odf
		res.Kind = kindOf(odf)
		odfMeta(files, res)
		if odf == mimeODS {
			res.Text, err = odsText(files["content.xml"])
		} else {
			res.Text, err = xmlText(files["content.xml"], odtRules)
		}
	default:
		res.Kind, res.MIME = "zip archive", "application/zip"
		return listZip(r, size, res)
	}
	return err
}

const (
	mimeDOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	mimePPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
	mimeXLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	mimeODS  = "application/vnd.oasis.opendocument.spreadsheet"
)

// readMember reads at most limit bytes of one zip member.
func readMember(f *zip.File, limit int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, limit))
}

// textRules say how an XML dialect marks text: elements whose character
// data is text, and elements that stand for a break or a tab.
type textRules struct {
	text   map[string]bool // local names whose char data is text
	breaks map[string]bool // end of these: a line break
	inline map[string]string
}

var docxRules = textRules{
	text:   map[string]bool{"t": true},
	breaks: map[string]bool{"p": true, "tr": true},
	inline: map[string]string{"tab": "\t", "br": "\n", "cr": "\n", "tc": "\t"},
}

var odtRules = textRules{
	text:   map[string]bool{"p": true, "h": true, "span": true, "a": true, "list-item": true},
	breaks: map[string]bool{"p": true, "h": true},
	inline: map[string]string{"tab": "\t", "line-break": "\n", "s": " "},
}

var pptxRules = textRules{
	text:   map[string]bool{"t": true},
	breaks: map[string]bool{"p": true},
	inline: map[string]string{"br": "\n"},
}

// xmlText streams one XML member and keeps its text by the rules.
func xmlText(f *zip.File, rules textRules) (string, error) {
	rc, err := f.Open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	d := xml.NewDecoder(io.LimitReader(rc, maxMemberSize))
	d.Strict = false
	var sb strings.Builder
	depth := 0 // inside a text element
	for sb.Len() < MaxText {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if sb.Len() > 0 {
				break // keep what was read before the damage
			}
			return "", fmt.Errorf("its XML is damaged: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if s, ok := rules.inline[t.Name.Local]; ok {
				sb.WriteString(s)
			}
			if rules.text[t.Name.Local] {
				depth++
			}
		case xml.EndElement:
			if rules.text[t.Name.Local] && depth > 0 {
				depth--
			}
			if rules.breaks[t.Name.Local] {
				sb.WriteByte('\n')
			}
		case xml.CharData:
			if depth > 0 {
				sb.Write(t)
			}
		}
	}
	return strings.TrimSpace(sb.String()), nil
}

// ooxmlCore reads title, author and dates from docProps/core.xml.
func ooxmlCore(files map[string]*zip.File, res *Result) {
	f := files["docProps/core.xml"]
	if f == nil {
		return
	}
	fields := xmlFields(f, map[string]string{"title": "title", "creator": "author", "created": "created", "modified": "modified"})
	for _, n := range []string{"title", "author", "created", "modified"} {
		res.add(n, fields[n])
	}
}

// odfMeta reads title, author and creation date from meta.xml.
func odfMeta(files map[string]*zip.File, res *Result) {
	f := files["meta.xml"]
	if f == nil {
		return
	}
	fields := xmlFields(f, map[string]string{"title": "title", "initial-creator": "author", "creator": "author", "creation-date": "created", "date": "modified"})
	for _, n := range []string{"title", "author", "created", "modified"} {
		res.add(n, fields[n])
	}
}

// xmlFields collects the text of the elements named in want (by local
// name), keeping the first value of each field.
func xmlFields(f *zip.File, want map[string]string) map[string]string {
	out := map[string]string{}
	b, err := readMember(f, 1<<20)
	if err != nil {
		return out
	}
	d := xml.NewDecoder(strings.NewReader(string(b)))
	d.Strict = false
	cur := ""
	for {
		tok, err := d.Token()
		if err != nil {
			return out
		}
		switch t := tok.(type) {
		case xml.StartElement:
			cur = want[t.Name.Local]
		case xml.EndElement:
			cur = ""
		case xml.CharData:
			if cur != "" && out[cur] == "" {
				out[cur] = strings.TrimSpace(string(t))
			}
		}
	}
}

// readPPTX gives the text of each slide, in slide order.
func readPPTX(zr *zip.Reader, res *Result) error {
	type slide struct {
		n int
		f *zip.File
	}
	var slides []slide
	for _, f := range zr.File {
		name, ok := strings.CutPrefix(f.Name, "ppt/slides/slide")
		if !ok || !strings.HasSuffix(name, ".xml") {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(name, ".xml")); err == nil {
			slides = append(slides, slide{n, f})
		}
	}
	sort.Slice(slides, func(i, j int) bool { return slides[i].n < slides[j].n })
	res.add("slides", strconv.Itoa(len(slides)))
	var sb strings.Builder
	for _, s := range slides {
		if sb.Len() > MaxText {
			break
		}
		text, err := xmlText(s.f, pptxRules)
		if err != nil {
			text = "[this slide could not be read]"
		}
		fmt.Fprintf(&sb, "--- slide %d ---\n%s\n", s.n, text)
	}
	res.Text = sb.String()
	return nil
}
