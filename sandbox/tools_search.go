//go:build unix

package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/tend-agent/tend/internal/safetext"
	"golang.org/x/sys/unix"
)

const (
	searchMaxResults  = 200
	searchMaxFileSize = 8 << 20
	searchLineWidth   = 200
	// searchMaxDocs bounds how many documents one search extracts (each
	// costs a child process); the rest are named as not searched.
	searchMaxDocs    = 100
	searchMaxDocSize = 256 << 20
)

func (b *Box) fileSearch(ctx context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
		Content bool   `json:"content"`
	}
	if err := decode("file_search", raw, &a); err != nil {
		return "", err
	}
	if strings.TrimSpace(a.Pattern) == "" {
		return "", toolErrf("file_search needs a non-empty \"pattern\": %s", argShape["file_search"])
	}
	rel, err := b.rel("file_search", "path", a.Path, false)
	if err != nil {
		return "", err
	}
	glob := strings.ContainsAny(a.Pattern, "*?[")
	if glob && !a.Content && !doublestar.ValidatePattern(a.Pattern) {
		return "", toolErrf("pattern %q is not a valid glob; use * for any characters, ** for any folders, or a plain substring", a.Pattern)
	}
	needle := strings.ToLower(a.Pattern)
	var lines []string
	more := false
	docs, skipped := 0, 0
	visit := func(e walkEntry) bool {
		if len(lines) >= searchMaxResults {
			more = true
			return false
		}
		if a.Content {
			if e.meta.Kind == "file" && e.meta.Size <= searchMaxDocSize {
				found, doc := b.grep(ctx, e.rel, needle, searchMaxResults-len(lines), docs < searchMaxDocs)
				lines = append(lines, found...)
				switch doc {
				case docRead:
					docs++
				case docSkipped:
					skipped++
				}
			}
			return true
		}
		name := e.name
		var ok bool
		if glob {
			inner := e.rel
			if rel != "" {
				inner = strings.TrimPrefix(e.rel, rel+"/")
			}
			ok, _ = doublestar.Match(a.Pattern, name)
			if !ok {
				ok, _ = doublestar.Match(a.Pattern, inner)
			}
		} else {
			ok = strings.Contains(strings.ToLower(name), needle)
		}
		if ok {
			lines = append(lines, entryLine(walkEntry{name: e.rel, meta: e.meta, target: e.target}))
		}
		return true
	}
	if err := b.walk(ctx, rel, 0, visit); err != nil {
		return "", err
	}
	note := ""
	if skipped > 0 {
		note = fmt.Sprintf("… %d more documents were not searched (at most %d are read per search); narrow the path\n", skipped, searchMaxDocs)
	}
	if len(lines) == 0 {
		what := "names"
		if a.Content {
			what = "text files and documents"
		}
		return fmt.Sprintf("no matches for %q in %s under %s\n", a.Pattern, what, shown(rel)) + note, nil
	}
	out := strings.Join(lines, "\n") + "\n" + note
	if more || len(lines) >= searchMaxResults {
		out += fmt.Sprintf("… stopped at %d results; narrow the pattern or the path\n", searchMaxResults)
	}
	return out, nil
}

// What grep did with a file that is not plain text.
const (
	docNone    = iota // plain text, or nothing to read
	docRead           // a document's extracted text was searched
	docSkipped        // a document was left out: the search read enough
)

// grep returns up to max "path:line: text" matches of needle (lowercase) in
// the file rel: in its lines when it is text, in its extracted text (when
// mayExtract) when it is a document, numbered by the lines of that text.
func (b *Box) grep(ctx context.Context, rel, needle string, max int, mayExtract bool) ([]string, int) {
	dirfd, base, err := b.fs.openParent(rel)
	if err != nil {
		return nil, docNone
	}
	f, err := b.openContent(dirfd, base, rel)
	unix.Close(dirfd)
	if err != nil {
		return nil, docNone
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return nil, docNone
	}
	if _, text := sniff(f); !text {
		if !mayExtract {
			return nil, docSkipped
		}
		r := b.extract(ctx, f, rel, &st)
		if r.Failed != "" || r.Text == "" {
			return nil, docRead
		}
		return grepLines(strings.NewReader(r.Text), rel, needle, max), docRead
	}
	if st.Size > searchMaxFileSize {
		return nil, docNone
	}
	return grepLines(f, rel, needle, max), docNone
}

// grepLines matches needle against each line of r.
func grepLines(r io.Reader, rel, needle string, max int) []string {
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if strings.Contains(strings.ToLower(line), needle) {
			if len(line) > searchLineWidth {
				line = string([]rune(line)[:min(len([]rune(line)), searchLineWidth)]) + "…"
			}
			out = append(out, fmt.Sprintf("%s:%d: %s", shown(rel), ln, safetext.Inline(line)))
			if len(out) >= max {
				break
			}
		}
	}
	return out
}
