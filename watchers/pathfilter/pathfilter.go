// Package pathfilter narrows a watcher's change set with include and exclude
// globs in doublestar syntax ("**/*.pdf", "notes/*.md"). A change set in which
// no path survives the filter does not dispatch and does not count as a fire;
// that decision belongs to the caller, this package only matches paths.
//
// Paths are relative to the watched folder and use forward slashes; a leading
// "./" or "/" is dropped before matching. A glob that matches a directory also
// matches everything below it, as in gitignore: "build" and "docs/*" cover
// "build/x/y.o" and "docs/a/b.md".
package pathfilter

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Filter holds the include and exclude globs of one watcher. The zero value
// matches every path.
type Filter struct {
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// Validate checks every glob and returns an error naming the first malformed
// one, or an empty pattern.
func (f Filter) Validate() error {
	if err := validateList("include", f.Include); err != nil {
		return err
	}
	return validateList("exclude", f.Exclude)
}

func validateList(kind string, globs []string) error {
	for _, g := range globs {
		if strings.TrimSpace(g) == "" {
			return fmt.Errorf("%s glob is empty: give a pattern such as \"**/*.pdf\"", kind)
		}
		if !doublestar.ValidatePattern(normalise(g)) {
			return fmt.Errorf("%s glob %q is malformed (check brackets and braces): use doublestar syntax such as \"**/*.pdf\" or \"docs/{a,b}/*.md\"", kind, g)
		}
	}
	return nil
}

// Match reports whether rel is kept: it is included when Include is empty or
// any include glob matches, and it is kept when, in addition, no exclude glob
// matches. Malformed globs never match.
func (f Filter) Match(rel string) bool {
	rel = normalise(rel)
	if rel == "" {
		return false
	}
	if len(f.Include) > 0 && !anyMatch(f.Include, rel) {
		return false
	}
	return !anyMatch(f.Exclude, rel)
}

// Apply returns the paths that Match keeps, in their original order and
// spelling. It returns nil when none is kept.
func (f Filter) Apply(paths []string) []string {
	var kept []string
	for _, p := range paths {
		if f.Match(p) {
			kept = append(kept, p)
		}
	}
	return kept
}

// Empty reports whether the filter has no globs (it keeps everything).
func (f Filter) Empty() bool { return len(f.Include) == 0 && len(f.Exclude) == 0 }

// anyMatch reports whether any glob matches rel or one of its parent
// directories.
func anyMatch(globs []string, rel string) bool {
	for _, g := range globs {
		g = normalise(g)
		if g == "" {
			continue
		}
		for p := rel; p != "." && p != "/" && p != ""; p = path.Dir(p) {
			if ok, err := doublestar.Match(g, p); err == nil && ok {
				return true
			}
		}
	}
	return false
}

func normalise(p string) string {
	p = strings.TrimSpace(p)
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	p = strings.TrimLeft(p, "/")
	if p == "" {
		return ""
	}
	// Clean collapses "a//b" and "a/./b" but must not touch glob syntax;
	// path.Clean only rewrites separators and dot segments, so it is safe.
	return path.Clean(p)
}
