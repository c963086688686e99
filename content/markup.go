package content

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/charmap"
)

// rtfText strips RTF to its text: control words go, \par becomes a line
// break, \'hh and \uN become characters, and groups that hold no text
// (font tables, pictures, \* destinations) are skipped.
func rtfText(r io.Reader) (string, error) {
	br := bufio.NewReader(r)
	var sb strings.Builder
	type group struct{ skip bool }
	stack := []group{{}}
	skipping := func() bool { return stack[len(stack)-1].skip }
	ucSkip := 0 // characters to drop after a \uN (its ANSI fallback)
	for sb.Len() < MaxText {
		c, err := br.ReadByte()
		if err != nil {
			break
		}
		switch c {
		case '{':
			if len(stack) > 1000 { // nesting this deep is not a document
				return sb.String(), nil
			}
			stack = append(stack, stack[len(stack)-1])
		case '}':
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		case '\\':
			word, arg, hasArg := rtfControl(br)
			switch {
			case word == "*" || rtfSkip[word]:
				stack[len(stack)-1].skip = true
			case skipping():
			case word == "'":
				if b, err := strconv.ParseUint(arg, 16, 8); err == nil {
					if ucSkip > 0 {
						ucSkip--
					} else {
						sb.WriteRune(charmap.Windows1252.DecodeByte(byte(b)))
					}
				}
			case word == "u" && hasArg:
				if n, err := strconv.Atoi(arg); err == nil {
					if n < 0 {
						n += 65536
					}
					sb.WriteRune(rune(n))
					ucSkip = 1
				}
			case word == "par" || word == "line" || word == "row" || word == "sect" || word == "page":
				sb.WriteByte('\n')
			case word == "tab" || word == "cell":
				sb.WriteByte('\t')
			case len(word) == 1 && !isLetter(word[0]): // escaped \ { } and the like
				if word == "~" {
					sb.WriteByte(' ')
				} else if word != "-" && word != "_" && word != "\n" && word != "\r" {
					sb.WriteString(word)
				} else if word == "\n" || word == "\r" {
					sb.WriteByte('\n')
				}
			}
		case '\r', '\n':
		default:
			if !skipping() {
				if ucSkip > 0 {
					ucSkip--
					continue
				}
				sb.WriteByte(c)
			}
		}
	}
	return strings.TrimSpace(strings.ToValidUTF8(sb.String(), "")), nil
}

var rtfSkip = map[string]bool{
	"fonttbl": true, "colortbl": true, "stylesheet": true, "info": true, "pict": true,
	"header": true, "footer": true, "themedata": true, "datastore": true, "latentstyles": true,
	"listtable": true, "listoverridetable": true, "rsidtbl": true, "generator": true, "object": true,
}

// rtfControl reads a control word after a backslash: its letters, an
// optional numeric argument and the space that ends it. \'hh returns
// "'" with the two hex digits.
func rtfControl(br *bufio.Reader) (word, arg string, hasArg bool) {
	c, err := br.ReadByte()
	if err != nil {
		return "", "", false
	}
	if c == '\'' {
		h := make([]byte, 0, 2)
		for range 2 {
			if b, err := br.ReadByte(); err == nil {
				h = append(h, b)
			}
		}
		return "'", string(h), true
	}
	if !isLetter(c) {
		return string(c), "", false
	}
	var w []byte
	w = append(w, c)
	for len(w) < 32 {
		b, err := br.ReadByte()
		if err != nil {
			return string(w), "", false
		}
		if !isLetter(b) {
			br.UnreadByte()
			break
		}
		w = append(w, b)
	}
	var a []byte
	for len(a) < 12 {
		b, err := br.ReadByte()
		if err != nil {
			break
		}
		if (b == '-' && len(a) == 0) || (b >= '0' && b <= '9') {
			a = append(a, b)
			continue
		}
		if b != ' ' {
			br.UnreadByte()
		}
		break
	}
	return string(w), string(a), len(a) > 0
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// readHTML keeps the visible text of a page and its title.
func readHTML(r io.Reader, res *Result) error {
	z := html.NewTokenizer(r)
	var sb strings.Builder
	skip, inTitle := 0, false
	for sb.Len() < MaxText {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			res.Text = tidySpaces(sb.String())
			return nil
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			tag := string(name)
			switch tag {
			case "script", "style", "noscript", "template", "svg":
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case "title":
				inTitle = tt == html.StartTagToken
			}
			if htmlBlock[tag] {
				sb.WriteByte('\n')
			} else if tag == "td" || tag == "th" {
				sb.WriteByte('\t')
			}
		case html.TextToken:
			if skip > 0 {
				continue
			}
			text := string(z.Text())
			if inTitle {
				res.add("title", text)
				continue
			}
			sb.WriteString(strings.Join(strings.Fields(text), " "))
			if strings.HasSuffix(text, " ") || strings.HasSuffix(text, "\n") {
				sb.WriteByte(' ')
			}
		}
	}
	res.Text = tidySpaces(sb.String())
	return nil
}

var htmlBlock = map[string]bool{
	"p": true, "br": true, "div": true, "li": true, "tr": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "section": true, "article": true, "header": true, "footer": true,
	"table": true, "ul": true, "ol": true, "pre": true, "blockquote": true, "hr": true,
}

// tidySpaces trims each line and folds runs of blank lines.
func tidySpaces(s string) string {
	var out []string
	blank := false
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			if !blank && len(out) > 0 {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
