package fingerprint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Update re-reads one path and returns a new tree; t is left as it was and
// the two share every node that did not change. The path may have been
// created, modified or removed. A file is re-lstat'd; a directory that
// appeared is walked in full; a directory that was already known is listed
// again one level deep (new subdirectories are walked, known ones are kept).
// Only the ancestors of the path are rehashed. When a parent of the path is
// not in the tree yet, the topmost missing parent is read instead, so an
// event for a file inside a new folder brings in the whole folder.
// Updating the root or the .tendignore file rebuilds the whole tree.
func (t *Tree) Update(rel string) (*Tree, error) {
	clean, ok := cleanRel(rel)
	if !ok {
		return nil, fmt.Errorf("updating fingerprint of %s: %q is not a path inside the folder", t.root, rel)
	}
	if clean == "" || clean == TendIgnoreFile {
		return t.rebuild()
	}

	// Descend to the parent, remembering the way back up.
	segs := strings.Split(clean, "/")
	chain := make([]*node, 1, len(segs))
	chain[0] = &t.top
	idx := make([]int, 0, len(segs))
	n := &t.top
	for i, s := range segs[:len(segs)-1] {
		j, ok := n.index(s)
		if !ok || n.kids.list[j].kind != KindDir {
			segs = segs[:i+1] // read the first missing or changed parent instead
			break
		}
		n = &n.kids.list[j]
		chain = append(chain, n)
		idx = append(idx, j)
	}
	target := strings.Join(segs, "/")
	name := strings.Clone(segs[len(segs)-1])
	parent := chain[len(chain)-1]
	j, exists := parent.index(name)
	var old *node
	if exists {
		old = &parent.kids.list[j]
	}

	abs := absPath(t.root, target)
	var st unix.Stat_t
	err := lstatRetry(abs, &st)
	remove := false
	var nd node
	var df, dd int // change in file and directory counts
	var skips []Skip
	drop := func(Skip) bool { return false } // which old skips no longer hold
	if err != nil {
		if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) {
			return nil, fmt.Errorf("updating fingerprint of %s: %w", abs, err)
		}
		remove = true
	} else {
		kind, size, mtime := fromStat(&st)
		if t.match.ignoredPath(target, kind == KindDir) {
			remove = true
		} else {
			nd = node{name: name, kind: kind, size: size, mtime: mtime}
			w := newWalker(context.Background(), t.root, t.match, t.opts.openDirHook)
			switch {
			case kind != KindDir:
				nd.hash = leafHash(kind, size, mtime)
				df++
			case old != nil && old.kind == KindDir:
				df, dd = t.rescanDir(w, abs, target, old, &nd)
				old = nil // rescanDir accounted for the old children
				drop = rescanDrop(target, &nd)
			default:
				if fd, err := w.openDir(unix.AT_FDCWD, abs, target); err != nil {
					w.openFailed(target, err)
					nd.hash = dirHash(nil)
				} else {
					if err := w.fillDir(fd, target, &nd); err != nil {
						w.openFailed(target, err)
					}
				}
				df, dd = int(w.files.Load()), int(w.dirs.Load())+1
			}
			skips = w.sortedSkips()
		}
	}
	if remove && !exists {
		return t, nil
	}
	if old != nil { // a whole old subtree goes
		drop = func(s Skip) bool { return s.Path == target || strings.HasPrefix(s.Path, target+"/") }
		if old.kind == KindDir {
			f, d := countNodes(old)
			df, dd = df-f, dd-d-1
		} else {
			df--
		}
	}

	// Copy the parent with the child replaced, inserted or removed, then
	// every ancestor up to the root.
	list := parent.children()
	var nl []node
	switch {
	case remove:
		nl = slices.Delete(slices.Clone(list), j, j+1)
	case exists:
		nl = slices.Clone(list)
		nl[j] = nd
	default:
		nl = slices.Insert(slices.Clone(list), j, nd)
	}
	cur := *parent
	cur.kids = nil
	if len(nl) > 0 {
		cur.kids = &dirKids{list: nl}
	}
	cur.rehash()
	for k := len(chain) - 2; k >= 0; k-- {
		p := *chain[k]
		l := slices.Clone(p.kids.list)
		l[idx[k]] = cur
		p.kids = &dirKids{list: l}
		p.rehash()
		cur = p
	}

	nt := *t
	nt.top = cur
	nt.files += df
	nt.dirs += dd
	nt.skipped = mergeSkips(t.skipped, drop, skips)
	return &nt, nil
}

// rescanDir lists a known directory again: entries are re-lstat'd, new
// subdirectories walked, known subdirectories kept with their subtrees. It
// fills nd and returns the change in counts below it.
func (t *Tree) rescanDir(w *walker, abs, rel string, old, nd *node) (df, dd int) {
	fd, err := w.openDir(unix.AT_FDCWD, abs, rel)
	var kids []node
	if err == nil {
		kids, err = w.readDir(fd, rel)
		defer unix.Close(fd)
	}
	if err != nil {
		w.openFailed(rel, err)
		kids = nil
	}
	for i := range kids {
		c := &kids[i]
		if c.kind != KindDir {
			continue
		}
		if j, ok := old.index(c.name); ok && old.kids.list[j].kind == KindDir {
			c.kids, c.hash = old.kids.list[j].kids, old.kids.list[j].hash
			continue
		}
		crel := joinRel(rel, c.name)
		cfd, err := w.openDir(fd, c.name, crel)
		if err != nil {
			w.openFailed(crel, err)
			c.hash = dirHash(nil)
			continue
		}
		if err := w.fillDir(cfd, crel, c); err != nil {
			w.openFailed(crel, err)
		}
	}
	if len(kids) > 0 {
		nd.kids = &dirKids{list: kids}
	}
	nd.hash = dirHash(kids)
	// Everything the walker read is new; everything old that was not kept
	// goes.
	df, dd = int(w.files.Load()), int(w.dirs.Load())
	for i := range old.children() {
		c := &old.kids.list[i]
		if c.kind != KindDir {
			df--
			continue
		}
		dd--
		if j, ok := nd.index(c.name); ok && kids[j].kind == KindDir && kids[j].kids == c.kids {
			continue // kept
		}
		f, d := countNodes(c)
		df, dd = df-f, dd-d
	}
	return df, dd
}

// rescanDrop tells which old skips a shallow rescan of target (now nd)
// settles: target's own, and those below children that are gone.
func rescanDrop(target string, nd *node) func(Skip) bool {
	return func(s Skip) bool {
		if s.Path == target {
			return true
		}
		rest := s.Path
		if target != "" {
			var ok bool
			if rest, ok = strings.CutPrefix(s.Path, target+"/"); !ok {
				return false
			}
		}
		first, _, _ := strings.Cut(rest, "/")
		k, kept := nd.index(first)
		return !kept || nd.kids.list[k].kind != KindDir
	}
}

// mergeSkips drops the old skips that no longer hold and those reported
// again, and adds the new ones, sorted.
func mergeSkips(old []Skip, drop func(Skip) bool, add []Skip) []Skip {
	if len(old) == 0 && len(add) == 0 {
		return nil
	}
	out := make([]Skip, 0, len(old)+len(add))
	for _, s := range old {
		if drop(s) {
			continue
		}
		if slices.ContainsFunc(add, func(a Skip) bool { return a.Path == s.Path }) {
			continue
		}
		out = append(out, s)
	}
	out = append(out, add...)
	slices.SortFunc(out, func(a, b Skip) int { return strings.Compare(a.Path, b.Path) })
	return out
}

func (t *Tree) rebuild() (*Tree, error) {
	return Build(context.Background(), t.root, t.opts)
}

func lstatRetry(p string, st *unix.Stat_t) error {
	for {
		err := unix.Lstat(p, st)
		if err != unix.EINTR {
			return err
		}
	}
}
