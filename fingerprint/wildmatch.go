package fingerprint

import "strings"

// This file is a port of git's wildmatch.c (the matcher behind .gitignore),
// so that an ignore pattern means exactly what it means to git: "*" and "?"
// stop at "/" when matching paths, "**" spans folders only between
// slashes, "[!a]" and "[^a]" are negated classes, "[:alpha:]" and the other
// POSIX classes are known, and "\" escapes the next character. Bytes are
// compared as bytes (no case folding, no locale), as git does on Linux.

// The results of dowild. abortAll and abortToStarStar let a "*" stop
// trying further positions once no later one can match.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether text matches pattern. With pathname set, "*",
// "?" and classes never match "/" (only "**" between slashes crosses
// folders).
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, text, pathname) == wmMatch
}

// at returns s[i], or 0 past the end (C's terminating NUL).
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isGlobSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }

func dowild(p, text string, pathname bool) int {
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pch, tch := p[pi], at(text, ti)
		if tch == 0 && pch != '*' {
			return wmAbortAll
		}
		switch pch {
		case '\\':
			// A literal match with the next character; a "\" ending
			// the pattern matches nothing.
			pi++
			if tch != at(p, pi) {
				return wmNoMatch
			}
		default:
			if tch != pch {
				return wmNoMatch
			}
		case '?':
			if pathname && tch == '/' {
				return wmNoMatch
			}
		case '*':
			matchSlash := !pathname
			pi++
			if at(p, pi) == '*' {
				prev := pi - 2
				for pi++; at(p, pi) == '*'; pi++ {
				}
				next := at(p, pi)
				if (prev < 0 || p[prev] == '/') && (next == 0 || next == '/' || (next == '\\' && at(p, pi+1) == '/')) {
					// "**/" may match no folder at all: "a/**/b"
					// matches "a/b".
					if next == '/' && dowild(p[pi+1:], text[ti:], pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				} else {
					matchSlash = false
				}
			}
			if pi >= len(p) {
				// A trailing "**" matches everything, a trailing "*"
				// only what has no more slashes.
				if !matchSlash && strings.IndexByte(text[ti:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && p[pi] == '/' {
				// One "*" then "/" matches up to the next slash; the
				// loop's step consumes both slashes.
				slash := strings.IndexByte(text[ti:], '/')
				if slash < 0 {
					return wmNoMatch
				}
				ti += slash
				continue
			}
			for tch != 0 {
				if !isGlobSpecial(p[pi]) {
					// Skip ahead to the literal that follows the star.
					lit := p[pi]
					for {
						tch = at(text, ti)
						if tch == 0 || (!matchSlash && tch == '/') || tch == lit {
							break
						}
						ti++
					}
					if tch != lit {
						return wmNoMatch
					}
				}
				m := dowild(p[pi:], text[ti:], pathname)
				if m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && tch == '/' {
					return wmAbortToStarStar
				}
				ti++
				tch = at(text, ti)
			}
			return wmAbortAll
		case '[':
			var ok bool
			var r int
			if pi, ok, r = matchClass(p, pi, tch); r != wmMatch {
				return r
			}
			if !ok || (pathname && tch == '/') {
				return wmNoMatch
			}
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// matchClass matches tch against the bracket expression that opens at
// p[pi] ('['). It returns the index of the closing ']', whether tch is in
// the set (negation applied) and wmMatch, or wmAbortAll for a bracket that
// is never closed or names an unknown [:class:] (git then matches
// nothing).
func matchClass(p string, pi int, tch byte) (int, bool, int) {
	pi++
	pch := at(p, pi)
	if pch == '^' {
		pch = '!'
	}
	negated := pch == '!'
	if negated {
		pi++
		pch = at(p, pi)
	}
	var prev byte
	matched := false
	for {
		if pch == 0 {
			return pi, false, wmAbortAll
		}
		switch {
		case pch == '\\':
			pi++
			pch = at(p, pi)
			if pch == 0 {
				return pi, false, wmAbortAll
			}
			if tch == pch {
				matched = true
			}
		case pch == '-' && prev != 0 && at(p, pi+1) != 0 && at(p, pi+1) != ']':
			pi++
			pch = p[pi]
			if pch == '\\' {
				pi++
				pch = at(p, pi)
				if pch == 0 {
					return pi, false, wmAbortAll
				}
			}
			if tch <= pch && tch >= prev {
				matched = true
			}
			pch = 0 // a range cannot start another range
		case pch == '[' && at(p, pi+1) == ':':
			s := pi + 2
			end := strings.IndexByte(p[s:], ']')
			if end < 0 {
				return pi, false, wmAbortAll
			}
			end += s
			if end-s-1 < 0 || p[end-1] != ':' {
				// No ":]": an ordinary '[' in the set.
				if tch == '[' {
					matched = true
				}
				pch = '['
				break
			}
			in, known := inClass(p[s:end-1], tch)
			if !known {
				return end, false, wmAbortAll
			}
			if in {
				matched = true
			}
			pi, pch = end, 0
		default:
			if tch == pch {
				matched = true
			}
		}
		prev = pch
		pi++
		pch = at(p, pi)
		if pch == ']' {
			break
		}
	}
	return pi, matched != negated, wmMatch
}

// inClass tests c against a POSIX class by git's (ASCII) definitions;
// known is false for a name git does not know.
func inClass(name string, c byte) (in, known bool) {
	upper := c >= 'A' && c <= 'Z'
	lower := c >= 'a' && c <= 'z'
	digit := c >= '0' && c <= '9'
	space := c == ' ' || c == '\t' || c == '\n' || c == '\r'
	print := c >= 0x20 && c <= 0x7e
	switch name {
	case "alnum":
		return upper || lower || digit, true
	case "alpha":
		return upper || lower, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return print && c != ' ', true
	case "lower":
		return lower, true
	case "print":
		return print, true
	case "punct":
		return print && c != ' ' && !upper && !lower && !digit, true
	case "space":
		return space, true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
