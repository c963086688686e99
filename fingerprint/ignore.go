package fingerprint

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// TendIgnoreFile is the name of the per-folder ignore file, read from the
// folder root (gitignore syntax).
const TendIgnoreFile = ".tendignore"

// pattern is one compiled gitignore line.
type pattern struct {
	negate   bool
	dirOnly  bool
	anchored bool     // contains a slash: matched against the whole relative path
	segs     []string // path segments (anchored) or the single name glob
}

// matcher holds every rule that decides whether an entry is left out.
type matcher struct {
	includeHidden bool
	nonRecursive  bool // only the root's own entries
	patterns      []pattern
	tendIgnore    []string            // the raw lines of .tendignore, kept for Save
	exclude       map[string]struct{} // clean relative paths
}

// ValidatePattern reports whether a gitignore-syntax pattern is well formed,
// for checking a watcher's ignore list before it is stored.
func ValidatePattern(line string) error {
	_, _, err := compileLine(line)
	return err
}

// compileLine parses one gitignore line; ok is false for blank lines and
// comments.
func compileLine(line string) (p pattern, ok bool, err error) {
	line = strings.TrimRight(line, "\r")
	if strings.HasPrefix(line, "#") {
		return p, false, nil
	}
	if !strings.HasSuffix(line, "\\ ") {
		line = strings.TrimRight(line, " \t")
	}
	if line == "" {
		return p, false, nil
	}
	if line[0] == '!' {
		p.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, "\\!") || strings.HasPrefix(line, "\\#") {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return p, false, nil
	}
	if strings.Contains(line, "/") {
		p.anchored = true
		line = strings.TrimLeft(line, "/")
		for _, s := range strings.Split(line, "/") {
			if s == "" {
				continue
			}
			p.segs = append(p.segs, s)
		}
		if len(p.segs) == 0 {
			return p, false, nil
		}
	} else {
		p.segs = []string{line}
	}
	for _, s := range p.segs {
		if s == "**" {
			continue
		}
		if _, err := path.Match(s, ""); err != nil {
			return p, false, fmt.Errorf("ignore pattern %q is malformed (check its [ ] brackets and \\ escapes)", line)
		}
	}
	return p, true, nil
}

func compilePatterns(lines []string, source string) ([]pattern, error) {
	var out []pattern
	for i, l := range lines {
		p, ok, err := compileLine(l)
		if err != nil {
			if source != "" {
				return nil, fmt.Errorf("%s line %d: %w", source, i+1, err)
			}
			return nil, err
		}
		if ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// newMatcher compiles the options and the lines of a .tendignore file.
func newMatcher(root string, opts Options, tendIgnore []string) (*matcher, error) {
	m := &matcher{includeHidden: opts.IncludeHidden, nonRecursive: opts.NonRecursive, tendIgnore: tendIgnore}
	ps, err := compilePatterns(opts.Ignore, "")
	if err != nil {
		return nil, err
	}
	ts, err := compilePatterns(tendIgnore, filepath.Join(root, TendIgnoreFile))
	if err != nil {
		return nil, err
	}
	m.patterns = append(ps, ts...)
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
	ignored := false
	for i := range m.patterns {
		p := &m.patterns[i]
		if p.negate != ignored || (p.dirOnly && !isDir) {
			continue // cannot change the outcome
		}
		var hit bool
		if p.anchored {
			hit = matchSegs(p.segs, rel)
		} else {
			hit, _ = path.Match(p.segs[0], name)
		}
		if hit {
			ignored = !p.negate
		}
	}
	return ignored
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

// matchSegs matches slash-separated path rel against pattern segments, where
// "**" stands for any number of segments (at least one when it ends the
// pattern).
func matchSegs(segs []string, rel string) bool {
	if len(segs) == 0 {
		return rel == ""
	}
	if segs[0] == "**" {
		if len(segs) == 1 {
			return rel != ""
		}
		for r := rel; ; {
			if matchSegs(segs[1:], r) {
				return true
			}
			i := strings.IndexByte(r, '/')
			if i < 0 {
				return false
			}
			r = r[i+1:]
		}
	}
	if rel == "" {
		return false
	}
	seg, rest, _ := strings.Cut(rel, "/")
	if ok, _ := path.Match(segs[0], seg); !ok {
		return false
	}
	return matchSegs(segs[1:], rest)
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
