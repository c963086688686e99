package fingerprint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// The file format: magic, version, a header (root, options, .tendignore
// lines, skips, counts), the nodes in depth-first order, then the root hash
// and an xxhash checksum of everything before it.
const (
	fileMagic   = "TENDFPT\n"
	fileVersion = 1
	maxDepth    = 4096
)

// Save writes the tree to path atomically (a temporary file in the same
// folder, fsync, rename).
func (t *Tree) Save(path string) error {
	b := make([]byte, 0, 64+t.Len()*24)
	b = append(b, fileMagic...)
	b = binary.AppendUvarint(b, fileVersion)
	b = appendString(b, t.root)
	var flags byte
	if t.opts.IncludeHidden {
		flags |= 1
	}
	if t.match.tendIgnore != nil {
		flags |= 2
	}
	if t.opts.NonRecursive {
		flags |= 4
	}
	b = append(b, flags)
	b = appendStrings(b, t.opts.Ignore)
	b = appendStrings(b, t.opts.Exclude)
	b = appendStrings(b, t.match.tendIgnore)
	b = binary.AppendUvarint(b, uint64(len(t.skipped)))
	for _, s := range t.skipped {
		b = appendString(b, s.Path)
		b = appendString(b, s.Err)
	}
	b = binary.AppendUvarint(b, uint64(t.files))
	b = binary.AppendUvarint(b, uint64(t.dirs))
	b = binary.AppendVarint(b, t.top.size)
	b = binary.AppendVarint(b, t.top.mtime)
	b = appendKids(b, &t.top)
	b = binary.LittleEndian.AppendUint64(b, t.top.hash)
	b = binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
	if err := writeAtomic(path, b); err != nil {
		return fmt.Errorf("saving fingerprint to %s: %w", path, err)
	}
	return nil
}

func appendKids(b []byte, n *node) []byte {
	kids := n.children()
	b = binary.AppendUvarint(b, uint64(len(kids)))
	for i := range kids {
		k := &kids[i]
		b = appendString(b, k.name)
		b = append(b, byte(k.kind))
		b = binary.AppendVarint(b, k.size)
		b = binary.AppendVarint(b, k.mtime)
		if k.kind == KindDir {
			b = appendKids(b, k)
		}
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

func writeAtomic(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// Load reads a tree written by Save. A file that is not a fingerprint, is
// truncated or corrupt gives an error naming it.
func Load(path string) (*Tree, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("loading fingerprint %s: %w", path, err)
	}
	t, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("loading fingerprint %s: %w (delete it to take a fresh baseline)", path, err)
	}
	return t, nil
}

var errCorrupt = errors.New("file is truncated or corrupt")

func decode(b []byte) (*Tree, error) {
	if len(b) < len(fileMagic)+16 || string(b[:len(fileMagic)]) != fileMagic {
		return nil, errors.New("not a tend fingerprint file")
	}
	body := b[:len(b)-8]
	if xxhash.Sum64(body) != binary.LittleEndian.Uint64(b[len(b)-8:]) {
		return nil, errCorrupt
	}
	wantHash := binary.LittleEndian.Uint64(body[len(body)-8:])
	d := &decoder{data: string(body[:len(body)-8]), off: len(fileMagic)}
	if v := d.uvarint(); v != fileVersion {
		if d.err != nil {
			return nil, d.err
		}
		return nil, fmt.Errorf("fingerprint format version %d is not supported (this tend reads version %d)", v, fileVersion)
	}
	t := &Tree{root: d.str()}
	flags := d.byte()
	t.opts.IncludeHidden = flags&1 != 0
	t.opts.NonRecursive = flags&4 != 0
	t.opts.Ignore = d.strs()
	t.opts.Exclude = d.strs()
	tendIgnore := d.strs()
	if flags&2 != 0 && tendIgnore == nil {
		tendIgnore = []string{}
	}
	ns := d.count(2)
	for i := 0; i < ns && d.err == nil; i++ {
		t.skipped = append(t.skipped, Skip{Path: d.str(), Err: d.str()})
	}
	files, dirs := d.uvarint(), d.uvarint()
	t.top = node{kind: KindDir, size: d.varint(), mtime: d.varint()}
	d.kids(&t.top, 0)
	if d.err == nil && d.off != len(d.data) {
		d.err = errCorrupt
	}
	if d.err != nil {
		return nil, d.err
	}
	t.files, t.dirs = countNodes(&t.top)
	if uint64(t.files) != files || uint64(t.dirs) != dirs || t.top.hash != wantHash {
		return nil, errCorrupt
	}
	m, err := newMatcher(t.root, t.opts, tendIgnore)
	if err != nil {
		return nil, err
	}
	t.match = m
	return t, nil
}

// decoder reads the format; after the first error every read returns zero.
type decoder struct {
	data  string
	off   int
	err   error
	arena []byte
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	var v uint64
	var s uint
	for i := 0; i < 10; i++ {
		if d.off >= len(d.data) {
			break
		}
		c := d.data[d.off]
		d.off++
		if c < 0x80 {
			return v | uint64(c)<<s
		}
		v |= uint64(c&0x7f) << s
		s += 7
	}
	d.fail()
	return 0
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

func (d *decoder) byte() byte {
	if d.err != nil || d.off >= len(d.data) {
		d.fail()
		return 0
	}
	c := d.data[d.off]
	d.off++
	return c
}

// count reads a length that must fit in the rest of the data, given that
// each item takes at least min bytes.
func (d *decoder) count(min int) int {
	n := d.uvarint()
	if n > uint64((len(d.data)-d.off)/min) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.count(1)
	if d.err != nil {
		return ""
	}
	s := d.data[d.off : d.off+n]
	d.off += n
	return strings.Clone(s)
}

func (d *decoder) strs() []string {
	n := d.count(1)
	var out []string
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, d.str())
	}
	return out
}

// kids reads n's children and sets its hash.
func (d *decoder) kids(n *node, depth int) {
	if depth > maxDepth {
		d.fail()
		return
	}
	cnt := d.count(4)
	if d.err != nil || cnt == 0 {
		n.hash = dirHash(nil)
		return
	}
	list := make([]node, cnt)
	spans := make([][2]int, cnt) // name positions in d.data
	total := 0
	for i := range list {
		ln := d.count(1)
		if d.err != nil {
			return
		}
		spans[i] = [2]int{d.off, d.off + ln}
		name := d.data[d.off : d.off+ln]
		d.off += ln
		total += ln
		k := &list[i]
		k.kind = Kind(d.byte())
		k.size = d.varint()
		k.mtime = d.varint()
		if d.err != nil {
			return
		}
		if !validName(name) || k.kind < KindFile || k.kind > KindOther ||
			(i > 0 && name <= d.data[spans[i-1][0]:spans[i-1][1]]) {
			d.fail()
			return
		}
		if k.kind == KindDir {
			d.kids(k, depth+1)
		} else {
			k.hash = leafHash(k.kind, k.size, k.mtime)
		}
	}
	// Give this directory's names one allocation of their own, so the
	// file's data is not kept alive.
	d.arena = d.arena[:0]
	for _, sp := range spans {
		d.arena = append(d.arena, d.data[sp[0]:sp[1]]...)
	}
	all := string(d.arena)
	pos := 0
	for i, sp := range spans {
		l := sp[1] - sp[0]
		list[i].name = all[pos : pos+l]
		pos += l
	}
	n.kids = &dirKids{list: list}
	n.hash = dirHash(list)
}

func validName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\x00")
}
