//go:build unix

package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/tend-agent/tend/internal/safetext"
	"golang.org/x/sys/unix"
)

const (
	searchMaxResults  = 200
	searchMaxFileSize = 8 << 20
	searchLineWidth   = 200
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
	visit := func(e walkEntry) bool {
		if len(lines) >= searchMaxResults {
			more = true
			return false
		}
		if a.Content {
			if e.meta.Kind == "file" && e.meta.Size <= searchMaxFileSize {
				lines = append(lines, b.grep(e.rel, needle, searchMaxResults-len(lines))...)
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
	if len(lines) == 0 {
		what := "names"
		if a.Content {
			what = "text files"
		}
		return fmt.Sprintf("no matches for %q in %s under %s", a.Pattern, what, shown(rel)), nil
	}
	out := strings.Join(lines, "\n") + "\n"
	if more || len(lines) >= searchMaxResults {
		out += fmt.Sprintf("… stopped at %d results; narrow the pattern or the path\n", searchMaxResults)
	}
	return out, nil
}

// grep returns up to max "path:line: text" matches of needle (lowercase) in
// the text file rel.
func (b *Box) grep(rel, needle string, max int) []string {
	dirfd, base, err := b.fs.openParent(rel)
	if err != nil {
		return nil
	}
	f, err := b.openContent(dirfd, base, rel)
	unix.Close(dirfd)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, 8000)
	n, _ := f.ReadAt(head, 0)
	if isBinary(head[:n]) {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(f)
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
