// Package safetext makes untrusted text (file names, link targets, lines
// of files) safe to show on one line of a prompt, a tool result or the
// history: a name that holds a line break, a terminal escape or a
// right-to-left override must not forge a line or read as something else.
//
// Name escapes, so the reader still learns the exact name (the model can
// address the file with it); Line and Block strip, for free text.
package safetext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unsafe reports whether r may not appear raw on a line: control
// characters (line breaks, escapes, NUL), invisible formatting characters
// (bidirectional overrides, zero-width marks) and the Unicode line and
// paragraph separators.
func unsafe(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// Clean reports whether s can be shown as it is.
func Clean(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unsafe(r) {
			return false
		}
	}
	return true
}

// Name returns s unchanged when it is clean, else s as a double-quoted Go
// string literal ("a\nb"), which escapes every unsafe character and any
// invalid UTF-8 and keeps the exact name readable.
func Name(s string) string {
	if Clean(s) {
		return s
	}
	return strconv.Quote(s)
}

// Inline escapes the unsafe characters of s in place (\r, \x1b, \u202e)
// without quoting the whole: for a line of text quoted after a name, as in
// a search result. Tabs stay.
func Inline(s string) string {
	if Clean(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i]), 16))
		case r == '\t' || !unsafe(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}

// Line strips the unsafe characters of s (after making it valid UTF-8), so
// free text stays on its line.
func Line(s string) string {
	return strings.Map(func(r rune) rune {
		if unsafe(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// Block is Line for multi-line text: line breaks ("\r\n" becomes "\n") and
// tabs stay.
func Block(s string) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
}
