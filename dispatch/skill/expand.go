package skill

import (
	"fmt"
	"strings"
	"time"
)

// Vars are the values a skill's variables expand to.
type Vars struct {
	Folder    string    // {folder}: absolute path of the watched folder
	Watcher   string    // {watcher}: the watcher's name
	Changed   []string  // {changed}: changed paths, relative to the folder
	Timestamp time.Time // {timestamp}: RFC 3339, in the time's own location
}

// Expand replaces {folder}, {watcher}, {changed} and {timestamp} in text.
// {changed} becomes one line per path, "- `path`", at most MaxChanged lines
// and then "N more changed file(s)"; with no paths it becomes
// "(no changed files)". Path names are data: control characters are removed
// and a name holding a backquote is fenced with double backquotes. Unknown
// variables and unmatched braces are left as they are.
func Expand(text string, v Vars) string {
	var b strings.Builder
	b.Grow(len(text))
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		text = text[i:]
		j := strings.IndexByte(text, '}')
		if j < 0 {
			b.WriteString(text)
			return b.String()
		}
		val, ok := lookup(text[1:j], v)
		if !ok {
			// Not a variable: keep the '{' and rescan after it, so that
			// "{{folder}" still expands the inner variable.
			b.WriteByte('{')
			text = text[1:]
			continue
		}
		b.WriteString(val)
		text = text[j+1:]
	}
}

func lookup(name string, v Vars) (string, bool) {
	switch name {
	case "folder":
		return clean(v.Folder), true
	case "watcher":
		return clean(v.Watcher), true
	case "timestamp":
		return v.Timestamp.Format(time.RFC3339), true
	case "changed":
		return changedList(v.Changed), true
	}
	return "", false
}

func changedList(paths []string) string {
	if len(paths) == 0 {
		return "(no changed files)"
	}
	var b strings.Builder
	for i, p := range paths {
		if i == MaxChanged {
			fmt.Fprintf(&b, "\n%d more changed file(s)", len(paths)-MaxChanged)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		p = clean(p)
		if strings.Contains(p, "`") {
			b.WriteString("- `` " + p + " ``")
		} else {
			b.WriteString("- `" + p + "`")
		}
	}
	return b.String()
}

// clean removes control characters (newlines included) from a value.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}
