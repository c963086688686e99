package fingerprint

import (
	"slices"
	"strings"
)

// Graft returns a tree equal to t except that each listed path holds what
// src holds there: the same entry (a whole subtree for a directory), or
// nothing when src has no entry at that path. Folders missing in t on the
// way to a path are made with src's metadata and only the grafted child.
// t and src are left as they were; the result shares their nodes.
//
// The watcher uses it to move its baseline past exactly the changes a run
// handled (as they were when the model was told about them) and the
// changes the run made, leaving everything else pending.
func (t *Tree) Graft(src *Tree, rels []string) *Tree {
	nt := *t
	top := t.top
	files, dirs := t.files, t.dirs
	for _, r := range rels {
		clean, ok := cleanRel(r)
		if !ok || clean == "" {
			continue
		}
		var df, dd int
		top, df, dd = graftAt(top, &src.top, strings.Split(clean, "/"))
		files += df
		dirs += dd
	}
	nt.top, nt.files, nt.dirs = top, files, dirs
	return &nt
}

// graftAt returns a copy of directory d in which the entry named by segs
// is what the directory s (src at the same place, nil if src has none)
// holds, and the change in file and directory counts below d.
func graftAt(d node, s *node, segs []string) (node, int, int) {
	name := segs[0]
	var sc *node
	if s != nil && s.kind == KindDir {
		if i, ok := s.index(name); ok {
			sc = &s.kids.list[i]
		}
	}
	i, exists := d.index(name)
	var old *node
	if exists {
		old = &d.kids.list[i]
	}
	var repl *node
	var df, dd int
	if len(segs) == 1 {
		if sc == nil && old == nil {
			return d, 0, 0
		}
		if sc != nil {
			c := *sc
			repl = &c
			f, dr := subtreeCount(sc)
			df, dd = f, dr
		}
		if old != nil {
			f, dr := subtreeCount(old)
			df, dd = df-f, dd-dr
		}
	} else {
		var child node
		switch {
		case old != nil && old.kind == KindDir:
			child = *old
		case sc != nil && sc.kind == KindDir:
			child = node{name: sc.name, kind: KindDir, size: sc.size, mtime: sc.mtime}
			child.rehash()
			dd++
			if old != nil { // a file gives way to the folder
				f, dr := subtreeCount(old)
				df, dd = df-f, dd-dr
			}
		default:
			return d, 0, 0 // neither side has a folder to graft into
		}
		c, f, dr := graftAt(child, sc, segs[1:])
		repl = &c
		df += f
		dd += dr
	}
	list := slices.Clone(d.children())
	switch {
	case repl == nil:
		list = slices.Delete(list, i, i+1)
	case exists:
		list[i] = *repl
	default:
		list = slices.Insert(list, i, *repl)
	}
	d.kids = nil
	if len(list) > 0 {
		d.kids = &dirKids{list: list}
	}
	d.rehash()
	return d, df, dd
}

// subtreeCount counts n itself and everything below it.
func subtreeCount(n *node) (files, dirs int) {
	if n.kind != KindDir {
		return 1, 0
	}
	f, d := countNodes(n)
	return f, d + 1
}
