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
	rd, err := pdf.NewReader(r, size)
	if err != nil {
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
	if usePdftotext {
		if text, ok := pdftotext(); ok {
			res.Text = text
			return nil
		}
	}
	var sb strings.Builder
	for i, p := range pages {
		if sb.Len() > MaxText {
			break
		}
		fmt.Fprintf(&sb, "--- page %d ---\n", i+1)
		sb.WriteString(pageText(p))
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

// pageText lays out the glyphs of one page: rows top to bottom, a space
// where the gap between glyphs is wider than a fraction of the font size.
func pageText(p pdf.Page) (out string) {
	defer func() {
		if recover() != nil {
			out = "[this page could not be read]"
		}
	}()
	glyphs := p.Content().Text
	if len(glyphs) == 0 {
		return ""
	}
	// Glyphs come in drawing order, which is reading order for most
	// documents; start a new line where the baseline moves.
	var sb strings.Builder
	prev := glyphs[0]
	sb.WriteString(prev.S)
	for _, g := range glyphs[1:] {
		size := math.Max(g.FontSize, 1)
		switch {
		case math.Abs(g.Y-prev.Y) > size*0.5:
			sb.WriteByte('\n')
		case g.X-(prev.X+prev.W) > size*0.15 || g.X < prev.X-size:
			if !strings.HasSuffix(prev.S, " ") && !strings.HasPrefix(g.S, " ") {
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(g.S)
		prev = g
	}
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
