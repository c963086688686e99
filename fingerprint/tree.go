package fingerprint

import (
	"encoding/binary"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// Kind is the type of a folder entry.
type Kind uint8

// The kinds of entries a tree records.
const (
	KindFile Kind = iota + 1
	KindDir
	KindSymlink
	KindOther // devices, sockets, fifos
)

// String names the kind for messages and JSON.
func (k Kind) String() string {
	switch k {
	case KindFile:
		return "file"
	case KindDir:
		return "dir"
	case KindSymlink:
		return "symlink"
	case KindOther:
		return "other"
	}
	return "unknown"
}

// MarshalText writes the kind's name, so JSON shows "file", "dir"...
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	for c := KindFile; c <= KindOther; c++ {
		if c.String() == string(b) {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("unknown entry kind %q (want file, dir, symlink or other)", b)
}

// Entry is the recorded metadata of one path in a tree.
type Entry struct {
	Path    string `json:"path"` // relative, slash-separated; "" is the root
	Kind    Kind   `json:"kind"`
	Size    int64  `json:"size"`
	MtimeNs int64  `json:"mtimeNs"`
}

// Skip is a subfolder that could not be read: it is recorded as an empty
// directory and reported, and the rest of the folder is still fingerprinted.
type Skip struct {
	Path string `json:"path"`
	Err  string `json:"err"`
}

// Options choose what a tree leaves out.
type Options struct {
	IncludeHidden bool     // hidden entries (name starting with '.') are skipped unless true
	Ignore        []string // gitignore-syntax patterns
	Exclude       []string // relative subtrees to skip entirely (nested watchers)
	// NonRecursive keeps only the root's own entries: a subfolder is an
	// entry (always empty), its contents are never read. This is what a
	// watch without --recursive hears about, so a start-up diff matches it.
	NonRecursive bool

	// openDirHook, when set (tests only), is called before a directory is
	// read; an error it returns is treated as the error of reading it.
	openDirHook func(rel string) error
}

// node is one entry. Nodes are never modified once a tree is published:
// Update copies the nodes on the path it changes and shares the rest.
// Children of a directory live in one sorted slice of values, so a tree costs
// one small allocation per directory plus the names.
type node struct {
	name  string
	kids  *dirKids // nil for non-directories and empty directories
	hash  uint64
	size  int64
	mtime int64
	kind  Kind
}

type dirKids struct {
	list []node // sorted by name, byte order
}

func (n *node) children() []node {
	if n.kids == nil {
		return nil
	}
	return n.kids.list
}

// Tree is an immutable fingerprint of one folder.
type Tree struct {
	root    string
	opts    Options
	match   *matcher
	top     node // the root directory; its name is ""
	files   int
	dirs    int
	skipped []Skip
}

// RootHash is the hash of the whole folder.
func (t *Tree) RootHash() uint64 { return t.top.hash }

// Counts gives the number of non-directory entries and of directories below
// the root (the root itself is not counted).
func (t *Tree) Counts() (files, dirs int) { return t.files, t.dirs }

// Root is the absolute path of the fingerprinted folder.
func (t *Tree) Root() string { return t.root }

// Options returns the options the tree was built with.
func (t *Tree) Options() Options {
	o := t.opts
	o.Ignore = append([]string(nil), o.Ignore...)
	o.Exclude = append([]string(nil), o.Exclude...)
	o.openDirHook = nil
	return o
}

// Skipped lists the subfolders that could not be read, sorted by path.
func (t *Tree) Skipped() []Skip { return append([]Skip(nil), t.skipped...) }

// Len is the number of entries below the root.
func (t *Tree) Len() int { return t.files + t.dirs }

// Lookup returns the entry recorded for a relative path.
func (t *Tree) Lookup(rel string) (Entry, bool) {
	rel, ok := cleanRel(rel)
	if !ok {
		return Entry{}, false
	}
	n := t.find(rel)
	if n == nil {
		return Entry{}, false
	}
	return Entry{Path: rel, Kind: n.kind, Size: n.size, MtimeNs: n.mtime}, true
}

// Walk calls fn for every entry below the root in depth-first, name order.
// Returning false from fn stops the walk.
func (t *Tree) Walk(fn func(e Entry) bool) {
	walkNodes(&t.top, "", fn)
}

func walkNodes(n *node, rel string, fn func(e Entry) bool) bool {
	for i := range n.children() {
		c := &n.kids.list[i]
		p := joinRel(rel, c.name)
		if !fn(Entry{Path: p, Kind: c.kind, Size: c.size, MtimeNs: c.mtime}) {
			return false
		}
		if c.kind == KindDir && !walkNodes(c, p, fn) {
			return false
		}
	}
	return true
}

// find returns the node at a clean relative path, or nil.
func (t *Tree) find(rel string) *node {
	n := &t.top
	if rel == "" {
		return n
	}
	for rel != "" {
		var name string
		name, rel, _ = strings.Cut(rel, "/")
		i, ok := n.index(name)
		if !ok {
			return nil
		}
		n = &n.kids.list[i]
	}
	return n
}

// index finds a child by name with a binary search.
func (n *node) index(name string) (int, bool) {
	kids := n.children()
	i := sort.Search(len(kids), func(i int) bool { return kids[i].name >= name })
	return i, i < len(kids) && kids[i].name == name
}

// leafHash is the hash of a non-directory entry.
func leafHash(kind Kind, size, mtime int64) uint64 {
	var b [17]byte
	b[0] = byte(kind)
	binary.LittleEndian.PutUint64(b[1:], uint64(size))
	binary.LittleEndian.PutUint64(b[9:], uint64(mtime))
	return xxhash.Sum64(b[:])
}

// dirHash is the hash of a directory: its sorted children's names, kinds and
// hashes. A directory's own size and mtime are left out, so touching a
// directory alone does not change the fingerprint.
func dirHash(kids []node) uint64 {
	var d xxhash.Digest
	d.Reset()
	var b [10]byte
	b[0] = byte(KindDir)
	_, _ = d.Write(b[:1])
	for i := range kids {
		_, _ = d.WriteString(kids[i].name)
		b[0] = 0
		b[1] = byte(kids[i].kind)
		binary.LittleEndian.PutUint64(b[2:], kids[i].hash)
		_, _ = d.Write(b[:])
	}
	return d.Sum64()
}

// rehash sets a node's hash from its contents.
func (n *node) rehash() {
	if n.kind == KindDir {
		n.hash = dirHash(n.children())
	} else {
		n.hash = leafHash(n.kind, n.size, n.mtime)
	}
}

// countNodes counts the non-directories and directories below n.
func countNodes(n *node) (files, dirs int) {
	for i := range n.children() {
		c := &n.kids.list[i]
		if c.kind == KindDir {
			dirs++
			f, d := countNodes(c)
			files += f
			dirs += d
		} else {
			files++
		}
	}
	return files, dirs
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// cleanRel turns a relative path into the tree's form: slash-separated, no
// "." or empty segments, "" for the root. Paths that climb out ("..") or are
// absolute are refused.
func cleanRel(rel string) (string, bool) {
	if strings.HasPrefix(rel, "/") {
		return "", false
	}
	rel = path.Clean(rel)
	if rel == "." {
		return "", true
	}
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}
