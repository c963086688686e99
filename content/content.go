package content

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/gabriel-vasile/mimetype"
)

// Limits on what one extraction produces. The model sees at most 15,000
// characters of a file; the extra room is for file_search over the text.
const (
	MaxText       = 1 << 20  // bytes of extracted text kept
	maxListing    = 200      // archive entries listed
	maxSheetRows  = 40       // spreadsheet rows shown per sheet
	maxSheetCols  = 16       // spreadsheet columns shown
	maxSheets     = 10       // spreadsheet sheets shown
	maxMemberSize = 64 << 20 // bytes read from one member of a zip container
	sniffBytes    = 3072
)

// Field is one piece of metadata, in the order it is shown.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Result is what one file holds, as the model is told.
type Result struct {
	Kind string  `json:"kind"` // for people: "PDF document", "JPEG image"
	MIME string  `json:"mime"`
	Size int64   `json:"size"`
	Meta []Field `json:"meta,omitempty"`
	// Text is the readable content: document text with page markers, a
	// sheet as a table, an archive listing. Empty when there is none.
	Text string `json:"text,omitempty"`
	// Textual is true when Text is the file's own text (plain text kinds)
	// rather than something extracted from a binary format.
	Textual bool `json:"textual,omitempty"`
	// Failed, when set, is one line saying why the content could not be
	// read; Kind, MIME and Size still hold.
	Failed string `json:"failed,omitempty"`
}

// Get returns the value of the named field, or "".
func (r *Result) Get(name string) string {
	for _, f := range r.Meta {
		if f.Name == name {
			return f.Value
		}
	}
	return ""
}

func (r *Result) add(name, value string) {
	value = strings.TrimSpace(oneLine(value))
	if value == "" {
		return
	}
	if len(value) > 300 {
		value = cutUTF8(value, 300) + "…"
	}
	r.Meta = append(r.Meta, Field{Name: name, Value: value})
}

// Sniff returns the MIME type of the file from its first bytes.
func Sniff(head []byte) string {
	if len(head) > sniffBytes {
		head = head[:sniffBytes]
	}
	return mimetype.Detect(head).String()
}

// IsPlainText reports whether a file with this MIME type is shown as its
// own text (as file_read always did) rather than extracted.
func IsPlainText(mime string) bool {
	base, _, _ := strings.Cut(mime, ";")
	switch base {
	case "text/html", "text/rtf", "application/rtf":
		return false
	}
	return strings.HasPrefix(base, "text/") || base == "application/json" ||
		base == "application/xml" || base == "application/x-ndjson" ||
		base == "application/x-subrip" || base == "image/svg+xml"
}

// Extract reads the file r of size bytes and describes it. It never
// panics: a parser that fails or panics leaves Failed set. It runs in the
// extraction child; call Run from the daemon.
func Extract(r io.ReaderAt, size int64) (res Result) {
	head := make([]byte, min(size, sniffBytes))
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	mime := mimetype.Detect(head)
	res = Result{MIME: mime.String(), Size: size, Kind: kindOf(mime.String())}
	defer func() {
		if p := recover(); p != nil {
			res.Text = ""
			res.Failed = fmt.Sprintf("the %s could not be read: it is damaged or uses a form tend does not understand (%s)", res.Kind, oneLine(fmt.Sprint(p)))
			if debugPanics {
				res.Failed += "\n" + string(debug.Stack())
			}
		}
		if len(res.Text) > MaxText {
			res.Text = cutUTF8(res.Text, MaxText)
		}
	}()
	var err error
	base, _, _ := strings.Cut(res.MIME, ";")
	switch {
	case base == "application/pdf":
		err = readPDF(r, size, &res)
	case isZipLike(base):
		err = readZipContainer(r, size, &res)
	case base == "application/x-tar":
		err = listTar(io.NewSectionReader(r, 0, size), &res, false)
	case base == "application/gzip":
		err = listTar(io.NewSectionReader(r, 0, size), &res, true)
	case base == "text/rtf" || base == "application/rtf":
		res.Text, err = rtfText(io.LimitReader(io.NewSectionReader(r, 0, size), maxMemberSize))
	case base == "text/html":
		err = readHTML(io.LimitReader(io.NewSectionReader(r, 0, size), maxMemberSize), &res)
	case strings.HasPrefix(base, "image/"):
		err = readImage(r, size, &res)
	case strings.HasPrefix(base, "audio/") || strings.HasPrefix(base, "video/"):
		err = readMedia(r, size, &res)
	case IsPlainText(res.MIME):
		b, _ := io.ReadAll(io.LimitReader(io.NewSectionReader(r, 0, size), MaxText))
		res.Text, res.Textual = string(b), true
	}
	if err != nil {
		res.Text = ""
		res.Failed = fmt.Sprintf("the %s could not be read: %s", res.Kind, oneLine(err.Error()))
	}
	return res
}

// debugPanics adds the stack to a panic's message (set by tests).
var debugPanics = false

func isZipLike(base string) bool {
	return base == "application/zip" || strings.HasPrefix(base, "application/vnd.openxmlformats") ||
		strings.HasPrefix(base, "application/vnd.oasis.opendocument") || base == "application/epub+zip" ||
		base == "application/jar" || base == "application/java-archive"
}

// kindOf names a MIME type for people.
func kindOf(mime string) string {
	base, _, _ := strings.Cut(mime, ";")
	if k, ok := kinds[base]; ok {
		return k
	}
	major, minor, _ := strings.Cut(base, "/")
	minor = strings.TrimPrefix(minor, "x-")
	switch major {
	case "image", "audio", "video":
		return strings.ToUpper(minor) + " " + map[string]string{"image": "image", "audio": "audio file", "video": "video"}[major]
	case "text":
		return "text file"
	}
	return "file of type " + base
}

var kinds = map[string]string{
	"application/pdf":   "PDF document",
	"application/zip":   "zip archive",
	"application/x-tar": "tar archive",
	"application/gzip":  "gzip file",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   "Word document (DOCX)",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         "Excel spreadsheet (XLSX)",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint presentation (PPTX)",
	"application/vnd.oasis.opendocument.text":                                   "OpenDocument text (ODT)",
	"application/vnd.oasis.opendocument.spreadsheet":                            "OpenDocument spreadsheet (ODS)",
	"application/vnd.oasis.opendocument.presentation":                           "OpenDocument presentation (ODP)",
	"text/rtf":                 "RTF document",
	"application/rtf":          "RTF document",
	"text/html":                "HTML page",
	"text/plain":               "text file",
	"image/jpeg":               "JPEG image",
	"image/png":                "PNG image",
	"image/gif":                "GIF image",
	"audio/mpeg":               "MP3 audio file",
	"audio/flac":               "FLAC audio file",
	"audio/wav":                "WAV audio file",
	"audio/ogg":                "Ogg audio file",
	"video/mp4":                "MP4 video",
	"audio/mp4":                "MP4 audio file",
	"application/octet-stream": "binary file",
}

// oneLine folds line breaks and control characters into spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// cutUTF8 returns at most n bytes of s, not splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
