package fingerprint

// Matcher applies a folder's ignore rules without a tree, for an event
// source that must decide what to watch before the first build.
type Matcher struct{ m *matcher }

// NewMatcher compiles the rules of opts and the folder's .tendignore. When
// the watcher's own patterns cannot be parsed (Build reports why), the
// built-in rules, hidden entries, .tendignore, exclusions and the
// recursive setting still apply.
func NewMatcher(root string, opts Options) *Matcher {
	lines, _ := readTendIgnore(root)
	m, err := newMatcher(root, opts, lines)
	if err != nil { // a malformed Options.Ignore pattern
		m, err = newMatcher(root, Options{IncludeHidden: opts.IncludeHidden, Exclude: opts.Exclude, NonRecursive: opts.NonRecursive}, lines)
	}
	if err != nil { // an exclusion that leaves the folder
		m, _ = newMatcher(root, Options{IncludeHidden: opts.IncludeHidden, NonRecursive: opts.NonRecursive}, lines)
	}
	return &Matcher{m}
}

// Ignored reports whether rel (slash-separated, relative to the root) is
// left out by the rules. The .tendignore file itself never is, even when
// hidden or matched by a pattern: a change to it changes the rules, and
// whoever watches the folder must hear of it.
func (mt *Matcher) Ignored(rel string, isDir bool) bool {
	rel, ok := cleanRel(rel)
	if !ok {
		return true
	}
	if rel == "" || mt.m == nil || rel == TendIgnoreFile {
		return false
	}
	return mt.m.ignoredPath(rel, isDir)
}
