//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// finalState is the state the ledger leaves a path in.
type finalState struct {
	meta    Meta
	subtree bool // the whole subtree is covered (a moved, copied or deleted dir)
}

// finalStates folds the real (not dry-run) effects into the last recorded
// state of every path they touch. A folder moved away or deleted takes the
// recorded states below it along (moved) or away (deleted).
func finalStates(effects []Effect) map[string]finalState {
	out := map[string]finalState{}
	carry := func(from, to string) {
		moved := map[string]finalState{}
		for p, st := range out {
			if p != from && within(p, from) {
				delete(out, p)
				if to != "" {
					moved[to+p[len(from):]] = st
				}
			}
		}
		for p, st := range moved {
			out[p] = st
		}
	}
	for _, e := range effects {
		if e.DryRun {
			continue
		}
		switch e.Op {
		case OpWrite, OpEdit, OpMkdir:
			out[e.Path] = finalState{meta: e.After}
		case OpDelete:
			carry(e.Path, "")
			out[e.Path] = finalState{meta: Meta{}, subtree: e.Before.Kind == "dir"}
		case OpMove:
			carry(e.Path, e.To)
			out[e.Path] = finalState{meta: Meta{}, subtree: e.Before.Kind == "dir"}
			out[e.To] = finalState{meta: e.After, subtree: e.After.Kind == "dir"}
		case OpCopy:
			out[e.To] = finalState{meta: e.After, subtree: e.After.Kind == "dir"}
		}
	}
	return out
}

// Unexplained returns the changed paths (relative to root, slash-separated)
// that this ledger does not fully explain. A path is explained when the
// ledger's final recorded state for it matches the disk now (existence,
// kind, size, mtime), when it lies inside a folder the run moved, copied or
// deleted as a whole and is in the state that implies, or when it is a
// folder that is an ancestor of something the run touched (its own listing
// changed because of the run).
func (l *Ledger) Unexplained(root string, changed []string) []string {
	fs := finalStates(l.Snapshot())
	var out []string
	for _, c := range changed {
		rel := filepath.ToSlash(filepath.Clean(c))
		if rel == "." {
			rel = ""
		}
		got := lstatMeta(filepath.Join(root, filepath.FromSlash(rel)))
		if !explained(fs, rel, got) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

func explained(fs map[string]finalState, rel string, got Meta) bool {
	if want, ok := fs[rel]; ok {
		return sameState(want.meta, got, false)
	}
	// inside a subtree moved, copied or deleted as a whole: the deepest one decides
	best, bestLen := finalState{}, -1
	for p, st := range fs {
		if st.subtree && within(rel, p) && len(p) > bestLen {
			best, bestLen = st, len(p)
		}
	}
	if bestLen >= 0 {
		return best.meta.Exists == got.Exists
	}
	// an ancestor folder of something the run touched
	if got.Exists && got.Kind == "dir" {
		for p := range fs {
			if within(p, rel) {
				return true
			}
		}
	}
	return false
}

// lstatMeta describes a path by name (without hashing), Meta{} if absent.
func lstatMeta(p string) Meta {
	fi, err := os.Lstat(p)
	if err != nil {
		return Meta{}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Meta{Exists: true, Kind: "other", Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano()}
	}
	m := Meta{Exists: true, MtimeNs: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode().Perm())}
	m.Kind = kindOf(uint32(st.Mode))
	if m.Kind != "dir" {
		m.Size = fi.Size()
	}
	return m
}
