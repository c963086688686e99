package content

import (
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/ledongthuc/pdf"
)

// PDF limits: a page tree deeper or larger than this is not a real
// document (a reference loop makes it endless).
const (
	maxPDFDepth = 24
	maxPDFNodes = 20000
	maxPDFPages = 5000
)

// usePdftotext chooses poppler's pdftotext over the pure-Go reader when it
// is installed: it lays words out better (see the README's measurements).
// Tests switch it off to measure the Go reader alone.
var usePdftotext = os.Getenv("TEND_CONTENT_NO_PDFTOTEXT") == ""

func readPDF(r io.ReaderAt, size int64, res *Result) error {
	if !usePdftotext {
		return readPDFGo(r, size, res)
	}
	return readPDFWith(r, size, res, true)
}

// readPDFGo reads with the pure-Go reader alone.
func readPDFGo(r io.ReaderAt, size int64, res *Result) error {
	return readPDFWith(r, size, res, false)
}

func readPDFWith(r io.ReaderAt, size int64, res *Result, poppler bool) error {
	rd, err := pdf.NewReader(r, size)
	if err != nil {
		// poppler repairs more damage than the Go reader: its text is
		// still worth having without the document info.
		if text, ok := pdftotextIf(poppler); ok {
			res.Text = text
			return nil
		}
		return fmt.Errorf("%v", err)
	}
	pages := pdfPages(rd)
	res.add("pages", strconv.Itoa(len(pages)))
	if info := rd.Trailer().Key("Info"); info.Kind() == pdf.Dict {
		res.add("title", info.Key("Title").Text())
		res.add("author", info.Key("Author").Text())
		res.add("subject", info.Key("Subject").Text())
		if t, ok := pdfDate(info.Key("CreationDate").Text()); ok {
			res.add("created", t)
		}
		if t, ok := pdfDate(info.Key("ModDate").Text()); ok {
			res.add("modified", t)
		}
	}
	if text, ok := pdftotextIf(poppler); ok {
		res.Text = text
		return nil
	}
	var sb strings.Builder
	fonts := map[string]*pdf.Font{}
	for i, p := range pages {
		if sb.Len() > MaxText {
			break
		}
		fmt.Fprintf(&sb, "--- page %d ---\n", i+1)
		sb.WriteString(pageText(p, fonts))
		sb.WriteString("\n")
	}
	res.Text = sb.String()
	return nil
}

// pdfPages walks the page tree in order, with a depth and size bound so a
// tree whose kids point back at their parent ends.
func pdfPages(rd *pdf.Reader) []pdf.Page {
	var pages []pdf.Page
	nodes := 0
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		nodes++
		if depth > maxPDFDepth || nodes > maxPDFNodes || len(pages) >= maxPDFPages {
			return
		}
		switch v.Key("Type").Name() {
		case "Page":
			pages = append(pages, pdf.Page{V: v})
		default: // "Pages", or a node missing its type
			kids := v.Key("Kids")
			for i := 0; i < kids.Len(); i++ {
				walk(kids.Index(i), depth+1)
			}
		}
	}
	walk(rd.Trailer().Key("Root").Key("Pages"), 0)
	return pages
}

// pageText runs the page's content stream and keeps its text: a line
// break where the text moves to a new line, a space where a TJ kern or a
// move is as wide as a space. Fonts are parsed once per document (fonts).
func pageText(p pdf.Page, fonts map[string]*pdf.Font) (out string) {
	defer func() {
		if recover() != nil {
			out = "[this page could not be read]"
		}
	}()
	strm := p.V.Key("Contents")
	if strm.IsNull() {
		return ""
	}
	var sb strings.Builder
	res := p.Resources().Key("Font")
	var enc pdf.TextEncoding
	lastY, haveY := 0.0, false
	space := func() {
		if s := sb.String(); len(s) > 0 && !strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\n") {
			sb.WriteByte(' ')
		}
	}
	newline := func() {
		if s := sb.String(); len(s) > 0 && !strings.HasSuffix(s, "\n") {
			sb.WriteByte('\n')
		}
	}
	show := func(v pdf.Value) {
		if enc == nil {
			sb.WriteString(v.RawString())
			return
		}
		sb.WriteString(enc.Decode(v.RawString()))
	}
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		if sb.Len() > MaxText {
			return
		}
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "Tf":
			if len(args) == 2 {
				name := args[0].Name()
				v := res.Key(name)
				key := name + "\x00" + v.Key("BaseFont").Name()
				f := fonts[key]
				if f == nil {
					f = &pdf.Font{V: v}
					fonts[key] = f
				}
				enc = f.Encoder()
			}
		case "T*":
			newline()
		case "Td", "TD":
			if len(args) == 2 {
				if args[1].Float64() != 0 {
					newline()
				} else if args[0].Float64() > 0 {
					space()
				}
			}
		case "Tm":
			if len(args) == 6 {
				y := args[5].Float64()
				if haveY && math.Abs(y-lastY) > 1 {
					newline()
				} else {
					space()
				}
				lastY, haveY = y, true
			}
		case "'", "\"":
			newline()
			if len(args) > 0 {
				show(args[len(args)-1])
			}
		case "Tj":
			if len(args) == 1 {
				show(args[0])
			}
		case "TJ":
			if len(args) == 1 {
				a := args[0]
				for i := 0; i < a.Len(); i++ {
					x := a.Index(i)
					if x.Kind() == pdf.String {
						show(x)
					} else if x.Float64() < -200 { // a kern as wide as a space
						space()
					}
				}
			}
		case "ET":
			space()
		}
	})
	return trimLines(sb.String())
}

// trimLines drops blank lines and trailing spaces.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if t := strings.TrimRight(l, " "); t != "" {
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n")
}

func pdftotextIf(use bool) (string, bool) {
	if !use {
		return "", false
	}
	return pdftotext()
}

// pdftotext runs poppler's pdftotext on standard input (the file itself,
// inherited from the daemon) and adds page markers at its form feeds.
func pdftotext() (string, bool) {
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		return "", false
	}
	cmd := exec.Command(bin, "-q", "-enc", "UTF-8", "/dev/stdin", "-")
	cmd.Stdin = os.Stdin
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		return "", false
	}
	pages := strings.Split(strings.TrimSuffix(string(out), "\f"), "\f")
	var sb strings.Builder
	for i, p := range pages {
		fmt.Fprintf(&sb, "--- page %d ---\n%s\n", i+1, strings.TrimSpace(p))
	}
	return sb.String(), true
}

// pdfDate turns a PDF date (D:YYYYMMDDHHmmSSOHH'mm') into RFC 3339, or
// a date alone when that is all it holds.
func pdfDate(s string) (string, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "D:")
	if len(s) < 4 {
		return "", false
	}
	digits := 0
	for digits < len(s) && digits < 14 && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	num := s[:digits]
	if len(num) < 4 {
		return "", false
	}
	num += "0101000000"[max(0, len(num)-4):]
	if len(num) > 14 {
		num = num[:14]
	}
	for len(num) < 14 {
		num += "0"
	}
	t, err := time.Parse("20060102150405", num)
	if err != nil {
		return "", false
	}
	rest := strings.ReplaceAll(s[digits:], "'", "")
	if len(rest) >= 5 && (rest[0] == '+' || rest[0] == '-') {
		h, e1 := strconv.Atoi(rest[1:3])
		m, e2 := strconv.Atoi(rest[3:5])
		if e1 == nil && e2 == nil && h < 24 && m < 60 {
			off := (h*60 + m) * 60
			if rest[0] == '-' {
				off = -off
			}
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.FixedZone("", off))
		}
	} else if len(rest) > 0 && rest[0] == 'Z' {
		t = t.UTC()
	}
	return t.Format(time.RFC3339), true
}
