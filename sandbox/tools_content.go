//go:build unix

package sandbox

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tend-agent/tend/content"
	"golang.org/x/sys/unix"
)

// sniffHead is how much of a file is read to tell its type.
const sniffHead = 3072

// sniff returns the file's MIME type from its first bytes and whether it
// is shown as its own text (as file_read always did) rather than
// extracted. A file of unknown type with no NUL byte is text too.
func sniff(f *os.File) (mime string, text bool) {
	head := make([]byte, sniffHead)
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	mime = content.Sniff(head)
	if content.IsPlainText(mime) {
		return mime, true
	}
	base, _, _ := strings.Cut(mime, ";")
	return mime, base == "application/octet-stream" && !isBinary(head)
}

// extract returns what the already-opened regular file f (rel in the
// folder, stat st) holds, from this run's cache or from an extraction
// child reading f itself: the file is never opened again by name.
func (b *Box) extract(ctx context.Context, f *os.File, rel string, st *unix.Stat_t) content.Result {
	key := content.Key{Path: rel, Size: st.Size, MtimeNs: st.Mtim.Nano(), Dev: uint64(st.Dev), Ino: uint64(st.Ino)}
	if r, ok := b.content.Get(key); ok {
		return r
	}
	r := content.Run(ctx, f, st.Size, b.opts.ContentLimits)
	if ctx.Err() == nil {
		b.content.Put(key, r)
	}
	return r
}

// describeContent is the first line of file_read for an extracted file,
// then its metadata one per line.
func describeContent(rel string, r content.Result) string {
	var sb strings.Builder
	base, _, _ := strings.Cut(r.MIME, ";")
	fmt.Fprintf(&sb, "%s is a %s (%s, %s)", shown(rel), r.Kind, base, content.HumanSize(r.Size))
	if r.Failed != "" {
		fmt.Fprintf(&sb, "; %s\n", r.Failed)
		return sb.String()
	}
	sb.WriteString("\n")
	for _, m := range r.Meta {
		fmt.Fprintf(&sb, "%s: %s\n", m.Name, m.Value)
	}
	return sb.String()
}

// cutText keeps the first readMaxChars characters of text, with a marker
// saying what was left out.
func cutText(text, what string) string {
	n := 0
	for i := range text {
		if n == readMaxChars {
			rest := len([]rune(text[i:]))
			return fmt.Sprintf("%s\n[… cut: showed the first %d characters of the %s; %d characters not shown. file_read shows at most %d characters; use file_search with content true to find a part]",
				text[:i], readMaxChars, what, rest, readMaxChars)
		}
		n++
	}
	return text
}
