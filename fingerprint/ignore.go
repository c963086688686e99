package fingerprint

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// TendIgnoreFile is the name of the per-folder ignore file, read from the
// folder root (gitignore syntax).
const TendIgnoreFile = ".tendignore"

// pattern is one compiled gitignore line, kept the way git keeps it
// (dir.c: parse_path_pattern) so that it matches what git matches.
type pattern struct {
	negate  bool   // "!pattern": a match brings the entry back
	dirOnly bool   // "pattern/": matches directories only
	nodir   bool   // no slash: matched against the entry's name at any depth
	text    string // without "!" and the trailing "/"
	prefix  int    // length of the leading part without wildcards
}

// matcher holds every rule that decides whether an entry is left out.
type matcher struct {
	includeHidden bool
	nonRecursive  bool // only the root's own entries
	patterns      []pattern
	tendIgnore    []string            // the raw lines of .tendignore, kept for Save
	exclude       map[string]struct{} // clean relative paths
	ignore        []string            // the raw lines of Options.Ignore
}

// sameRules reports whether two matchers leave out the same entries
// because they were made from the same rules.
func (m *matcher) sameRules(o *matcher) bool {
	if m == o {
		return true
	}
	if m == nil || o == nil {
		return false
	}
	return m.includeHidden == o.includeHidden && m.nonRecursive == o.nonRecursive &&
		slices.Equal(m.ignore, o.ignore) && slices.Equal(m.tendIgnore, o.tendIgnore) &&
		maps.Equal(m.exclude, o.exclude)
}

// ValidatePattern reports whether a gitignore-syntax pattern is well
// formed, for checking a watcher's ignore list before it is stored. Git
// takes any line, but one whose "[" is never closed, that names an unknown
// "[:class:]" or that ends in a lone "\" can never match anything: that is
// a mistake worth telling the user about.
func ValidatePattern(line string) error {
	p, ok := compileLine(line)
	if !ok {
		return nil
	}
	t := p.text
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '\\':
			if i+1 >= len(t) {
				return fmt.Errorf("ignore pattern %q ends in a lone \\ and never matches (write \\\\ for a backslash)", line)
			}
			i++
		case '[':
			end, _, r := matchClass(t, i, 'a')
			if r != wmMatch {
				return fmt.Errorf("ignore pattern %q is malformed and never matches (check its [ ] brackets, [:classes:] and \\ escapes)", line)
			}
			i = end
		}
	}
	return nil
}

// compileLine parses one line as git does (dir.c: add_patterns_from_buffer
// and parse_path_pattern); ok is false for blank lines and comments. Git
// takes every line: a malformed one simply never matches.
func compileLine(line string) (p pattern, ok bool) {
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i] // git reads each line as a C string
	}
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return p, false
	}
	line = trimTrailingSpaces(line)
	if line != "" && line[0] == '!' {
		p.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" {
		return p, false // matches nothing
	}
	p.nodir = !strings.Contains(line, "/")
	p.text = line
	p.prefix = len(line)
	for i := 0; i < len(line); i++ {
		if isGlobSpecial(line[i]) {
			p.prefix = i
			break
		}
	}
	return p, true
}

// trimTrailingSpaces drops trailing spaces (not tabs) unless the first of
// them is escaped with a backslash, like git's trim_trailing_spaces.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			fallthrough
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// match reports whether the pattern matches the entry at rel (its name is
// the last segment), as git's match_basename and match_pathname do.
func (p *pattern) match(rel, name string) bool {
	if p.nodir {
		return wildmatch(p.text, name, false)
	}
	pat, prefix := p.text, p.prefix
	if pat[0] == '/' {
		pat, prefix = pat[1:], prefix-1
	}
	if prefix > 0 {
		if prefix > len(rel) || pat[:prefix] != rel[:prefix] {
			return false
		}
		pat, rel = pat[prefix:], rel[prefix:]
		if pat == "" && rel == "" {
			return true
		}
	}
	// The rest is matched on its own: git starts its wildmatch after the
	// literal prefix, which matters for "**" right after it.
	return wildmatch(pat, rel, true)
}

func compilePatterns(lines []string) []pattern {
	var out []pattern
	for _, l := range lines {
		if p, ok := compileLine(l); ok {
			out = append(out, p)
		}
	}
	return out
}

// newMatcher compiles the options and the lines of a .tendignore file.
func newMatcher(root string, opts Options, tendIgnore []string) (*matcher, error) {
	m := &matcher{includeHidden: opts.IncludeHidden, nonRecursive: opts.NonRecursive, tendIgnore: tendIgnore, ignore: slices.Clone(opts.Ignore)}
	for _, l := range opts.Ignore {
		if err := ValidatePattern(l); err != nil {
			return nil, err
		}
	}
	// .tendignore is read the way git reads a .gitignore: a line that
	// cannot match is no error, it just matches nothing.
	m.patterns = append(compilePatterns(opts.Ignore), compilePatterns(tendIgnore)...)
	for _, ex := range opts.Exclude {
		if filepath.IsAbs(ex) {
			r, err := filepath.Rel(root, ex)
			if err != nil || r == ".." || strings.HasPrefix(r, "../") {
				continue // outside this folder: nothing to exclude
			}
			ex = filepath.ToSlash(r)
		}
		rel, ok := cleanRel(ex)
		if !ok {
			return nil, fmt.Errorf("excluded path %q must be relative to %s and stay inside it", ex, root)
		}
		if rel == "" {
			continue
		}
		if m.exclude == nil {
			m.exclude = make(map[string]struct{})
		}
		m.exclude[rel] = struct{}{}
	}
	return m, nil
}

// builtinIgnored reports names that are always left out: .git and editor
// swap and temporary files.
func builtinIgnored(name string) bool {
	switch name {
	case ".git", ".DS_Store", "4913":
		return true
	}
	return strings.HasSuffix(name, ".swp") || strings.HasSuffix(name, ".swx") ||
		strings.HasSuffix(name, "~") || strings.HasPrefix(name, ".#")
}

// skipName is the check that needs only the name (done before lstat).
func (m *matcher) skipName(name string) bool {
	if name == "" || builtinIgnored(name) {
		return true
	}
	return !m.includeHidden && name[0] == '.'
}

// skipEntry is the check that needs the relative path and kind. The caller
// has already checked skipName.
func (m *matcher) skipEntry(rel, name string, isDir bool) bool {
	if m.exclude != nil {
		if _, ok := m.exclude[rel]; ok {
			return true
		}
	}
	// The last pattern that matches decides, as in git.
	for i := len(m.patterns) - 1; i >= 0; i-- {
		p := &m.patterns[i]
		if p.dirOnly && !isDir {
			continue
		}
		if p.match(rel, name) {
			return !p.negate
		}
	}
	return false
}

// ignoredPath applies every rule to a path and its parent directories, the
// way a walk does.
func (m *matcher) ignoredPath(rel string, isDir bool) bool {
	if m.nonRecursive && strings.Contains(rel, "/") {
		return true
	}
	for i := 0; ; {
		j := strings.IndexByte(rel[i:], '/')
		last := j < 0
		end := len(rel)
		if !last {
			end = i + j
		}
		name := rel[i:end]
		if m.skipName(name) || m.skipEntry(rel[:end], name, isDir || !last) {
			return true
		}
		if last {
			return false
		}
		i = end + 1
	}
}

// Ignored reports whether the tree leaves out a relative path, by the same
// rules as the walk (a path below an ignored or excluded directory is
// ignored too). isDir says whether the path itself is a directory.
func (t *Tree) Ignored(rel string, isDir bool) bool {
	rel, ok := cleanRel(rel)
	if !ok {
		return true
	}
	if rel == "" {
		return false
	}
	return t.match.ignoredPath(rel, isDir)
}
