package fingerprint

import "sort"

// Changes are the differences between two trees, as relative paths, each
// list sorted.
type Changes struct {
	Added    []string `json:"added,omitempty"`
	Removed  []string `json:"removed,omitempty"`
	Modified []string `json:"modified,omitempty"`
}

// Empty reports whether nothing changed.
func (c Changes) Empty() bool { return c.Len() == 0 }

// Len is the number of changed paths.
func (c Changes) Len() int { return len(c.Added) + len(c.Removed) + len(c.Modified) }

// Diff lists what changed from old to new. A nil old means everything in new
// was added (a nil new, that everything was removed). An added or removed
// directory is listed together with every entry below it. Only files,
// symlinks and other non-directories count as modified (size or mtime
// changed); a directory's own mtime is not a change. An entry that changed
// kind is removed and added. Subtrees with equal hashes are skipped.
//
// When the trees were built under different rules (a .tendignore written
// or edited, other options), a path is listed only when neither tree's
// rules leave it out: what the rules newly ignore is not "removed", and
// what they newly let in was there already and is not "added".
func Diff(old, new *Tree) Changes {
	var c Changes
	var o, n *node
	if old != nil {
		o = &old.top
	}
	if new != nil {
		n = &new.top
	}
	switch {
	case o == nil && n == nil:
	case o == nil:
		listAll(n, "", &c.Added)
	case n == nil:
		listAll(o, "", &c.Removed)
	default:
		diffDir(o, n, "", &c)
	}
	if o != nil && n != nil && !old.match.sameRules(new.match) {
		visible := func(p string, in *Tree) bool {
			isDir := false
			if e, ok := in.Lookup(p); ok {
				isDir = e.Kind == KindDir
			}
			return !old.match.ignoredPath(p, isDir) && !new.match.ignoredPath(p, isDir)
		}
		c.Added = keep(c.Added, new, visible)
		c.Removed = keep(c.Removed, old, visible)
		c.Modified = keep(c.Modified, new, visible)
	}
	sort.Strings(c.Added)
	sort.Strings(c.Removed)
	sort.Strings(c.Modified)
	return c
}

// keep filters paths in place.
func keep(paths []string, in *Tree, ok func(string, *Tree) bool) []string {
	out := paths[:0]
	for _, p := range paths {
		if ok(p, in) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func diffDir(o, n *node, rel string, c *Changes) {
	if o.hash == n.hash {
		return // equal subtrees (often the very same shared nodes)
	}
	ok, nk := o.children(), n.children()
	i, j := 0, 0
	for i < len(ok) || j < len(nk) {
		switch {
		case j >= len(nk) || (i < len(ok) && ok[i].name < nk[j].name):
			removeNode(&ok[i], joinRel(rel, ok[i].name), c)
			i++
		case i >= len(ok) || nk[j].name < ok[i].name:
			addNode(&nk[j], joinRel(rel, nk[j].name), c)
			j++
		default:
			a, b := &ok[i], &nk[j]
			i++
			j++
			if a.hash == b.hash && a.kind == b.kind {
				continue
			}
			p := joinRel(rel, a.name)
			switch {
			case a.kind != b.kind:
				removeNode(a, p, c)
				addNode(b, p, c)
			case a.kind == KindDir:
				diffDir(a, b, p, c)
			default:
				c.Modified = append(c.Modified, p)
			}
		}
	}
}

func addNode(n *node, p string, c *Changes) {
	c.Added = append(c.Added, p)
	if n.kind == KindDir {
		listAll(n, p, &c.Added)
	}
}

func removeNode(n *node, p string, c *Changes) {
	c.Removed = append(c.Removed, p)
	if n.kind == KindDir {
		listAll(n, p, &c.Removed)
	}
}

// listAll appends every path below n.
func listAll(n *node, rel string, out *[]string) {
	for i := range n.children() {
		k := &n.kids.list[i]
		p := joinRel(rel, k.name)
		*out = append(*out, p)
		if k.kind == KindDir {
			listAll(k, p, out)
		}
	}
}
