package fingerprint

// Rebase returns the baseline t re-expressed under the rules of live, for
// when the rules changed between the two (a .tendignore written or
// edited, a watcher's options edited). What both sets of rules see keeps
// t's state, so what changed there is still news; what only live's rules
// see is taken from live, as it was there already; what live's rules
// leave out goes. A folder that is new under both rules is left out whole,
// so all of it is news. With the same rules Rebase returns t itself.
func (t *Tree) Rebase(live *Tree) *Tree {
	if t == nil || live == nil || t.match.sameRules(live.match) {
		return t
	}
	nt := *live
	nt.top = rebaseDir(&t.top, &live.top, "", t.match, live.match)
	nt.files, nt.dirs = countNodes(&nt.top)
	// Skips are about reading the folder now: live's hold.
	return &nt
}

// rebaseDir merges directory b (the baseline's) and l (live's) at rel,
// both seen by both sets of rules.
func rebaseDir(b, l *node, rel string, old, cur *matcher) node {
	out := *l
	if b.hash == l.hash {
		return out
	}
	bk, lk := b.children(), l.children()
	kids := make([]node, 0, max(len(bk), len(lk)))
	for i, j := 0, 0; i < len(bk) || j < len(lk); {
		switch {
		case j >= len(lk) || (i < len(bk) && bk[i].name < lk[j].name):
			c := &bk[i] // removed, or left out by the current rules
			i++
			if p := joinRel(rel, c.name); !cur.ignoredPath(p, c.kind == KindDir) {
				kids = append(kids, prune(c, p, cur))
			}
		case i >= len(bk) || lk[j].name < bk[i].name:
			c := &lk[j] // added, or left out by the old rules
			j++
			if old.ignoredPath(joinRel(rel, c.name), c.kind == KindDir) {
				kids = append(kids, *c)
			}
		default:
			bc, lc := &bk[i], &lk[j]
			i++
			j++
			p := joinRel(rel, bc.name)
			if bc.kind == KindDir && lc.kind == KindDir {
				kids = append(kids, rebaseDir(bc, lc, p, old, cur))
			} else {
				kids = append(kids, prune(bc, p, cur))
			}
		}
	}
	out.kids = nil
	if len(kids) > 0 {
		out.kids = &dirKids{list: kids}
	}
	out.rehash()
	return out
}

// prune returns n without the entries below it that m leaves out.
func prune(n *node, rel string, m *matcher) node {
	out := *n
	if n.kind != KindDir || n.kids == nil {
		return out
	}
	kids := make([]node, 0, len(n.kids.list))
	changed := false
	for i := range n.kids.list {
		c := &n.kids.list[i]
		p := joinRel(rel, c.name)
		if m.ignoredPath(p, c.kind == KindDir) {
			changed = true
			continue
		}
		pc := prune(c, p, m)
		changed = changed || pc.hash != c.hash
		kids = append(kids, pc)
	}
	if !changed {
		return out
	}
	out.kids = nil
	if len(kids) > 0 {
		out.kids = &dirKids{list: kids}
	}
	out.rehash()
	return out
}
