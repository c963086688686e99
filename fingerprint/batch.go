package fingerprint

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// batchRescanMin is how many changed entries of one directory make
// UpdatePaths list that directory again once instead of updating each.
const batchRescanMin = 16

// UpdatePaths folds many changed paths into a new tree, like calling Update
// for each, but a directory with many changed entries (a branch checkout, a
// bulk copy) is listed once instead of being copied and rehashed per entry.
func (t *Tree) UpdatePaths(rels []string) (*Tree, error) {
	byParent := map[string][]string{}
	for _, r := range rels {
		clean, ok := cleanRel(r)
		if !ok {
			return nil, fmt.Errorf("updating fingerprint of %s: %q is not a path inside the folder", t.root, r)
		}
		if clean == "" || clean == TendIgnoreFile {
			return t.rebuild()
		}
		dir := path.Dir(clean)
		if dir == "." {
			dir = ""
		}
		byParent[dir] = append(byParent[dir], clean)
	}
	var rescan, rest []string
	for dir, list := range byParent {
		if len(list) >= batchRescanMin {
			rescan = append(rescan, dir)
			// Listing the parent keeps known subdirectories as they were,
			// so those named still get listed themselves.
			for _, p := range list {
				if n := t.find(p); n != nil && n.kind == KindDir {
					rest = append(rest, p)
				}
			}
		} else {
			rest = append(rest, list...)
		}
	}
	// Shallow directories first, so a deeper one is listed inside the
	// already refreshed parent.
	depth := func(p string) int {
		if p == "" {
			return 0
		}
		return 1 + strings.Count(p, "/")
	}
	slices.SortFunc(rescan, func(a, b string) int {
		if c := depth(a) - depth(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	slices.Sort(rest)
	cur := t
	for _, dir := range rescan {
		var err error
		if dir == "" {
			cur, err = cur.rescanRoot()
		} else {
			cur, err = cur.Update(dir)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, p := range rest {
		var err error
		if cur, err = cur.Update(p); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

// rescanRoot lists the root again one level deep (see Update).
func (t *Tree) rescanRoot() (*Tree, error) {
	var st unix.Stat_t
	if err := lstatRetry(t.root, &st); err != nil {
		return nil, fmt.Errorf("updating fingerprint of %s: %w", t.root, err)
	}
	_, size, mtime := fromStat(&st)
	nd := node{kind: KindDir, size: size, mtime: mtime}
	w := newWalker(context.Background(), t.root, t.match, t.opts.openDirHook)
	df, dd := t.rescanDir(w, t.root, "", &t.top, &nd)
	nt := *t
	nt.top = nd
	nt.files += df
	nt.dirs += dd
	nt.skipped = mergeSkips(t.skipped, rescanDrop("", &nd), w.sortedSkips())
	return &nt, nil
}
