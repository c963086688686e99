package fingerprint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Build fingerprints the folder at root. The walk runs in parallel and never
// follows symbolic links (the root itself may be one). Subfolders that cannot
// be read are recorded as empty and listed by Skipped.
func Build(ctx context.Context, root string, opts Options) (*Tree, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("fingerprinting %s: %w", root, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("fingerprinting %s: the folder does not exist", abs)
		}
		return nil, fmt.Errorf("fingerprinting %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("fingerprinting %s: not a directory (point tend at a folder)", abs)
	}
	tendIgnore, err := readTendIgnore(abs)
	if err != nil {
		return nil, err
	}
	m, err := newMatcher(abs, opts, tendIgnore)
	if err != nil {
		return nil, fmt.Errorf("fingerprinting %s: %w", abs, err)
	}
	t := &Tree{root: abs, opts: cloneOptions(opts), match: m}
	t.top = node{kind: KindDir, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	w := newWalker(ctx, m, opts.openDirHook)
	if err := w.fillDir(abs, "", &t.top); err != nil {
		return nil, fmt.Errorf("fingerprinting %s: %w", abs, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("fingerprinting %s: %w", abs, err)
	}
	t.files, t.dirs = int(w.files.Load()), int(w.dirs.Load())
	t.skipped = w.sortedSkips()
	return t, nil
}

func cloneOptions(o Options) Options {
	o.Ignore = append([]string(nil), o.Ignore...)
	o.Exclude = append([]string(nil), o.Exclude...)
	return o
}

// readTendIgnore returns the lines of the folder's .tendignore, or nil when
// there is none.
func readTendIgnore(root string) ([]string, error) {
	p := filepath.Join(root, TendIgnoreFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading ignore file %s: %w", p, err)
	}
	return strings.Split(string(b), "\n"), nil
}

// walker is the state of one parallel walk.
type walker struct {
	ctx   context.Context
	m     *matcher
	hook  func(rel string) error
	sem   chan struct{} // tokens for extra goroutines
	files atomic.Int64
	dirs  atomic.Int64

	mu    sync.Mutex
	skips []Skip
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

var namePool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

func newWalker(ctx context.Context, m *matcher, hook func(string) error) *walker {
	n := 2*runtime.GOMAXPROCS(0) - 1
	return &walker{ctx: ctx, m: m, hook: hook, sem: make(chan struct{}, n)}
}

func (w *walker) skip(rel string, err error) {
	w.mu.Lock()
	w.skips = append(w.skips, Skip{Path: rel, Err: describeErr(err)})
	w.mu.Unlock()
}

func (w *walker) sortedSkips() []Skip {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := append([]Skip(nil), w.skips...)
	slices.SortFunc(s, func(a, b Skip) int { return strings.Compare(a.Path, b.Path) })
	return s
}

func describeErr(err error) string {
	if errors.Is(err, fs.ErrPermission) {
		return "permission denied"
	}
	return err.Error()
}

// fillDir reads the directory abs (relative path rel) and sets n's children,
// recursively, and its hash. n's own metadata is already set. Only an error
// on the root itself is returned; below it errors become skips.
func (w *walker) fillDir(abs, rel string, n *node) error {
	if w.ctx.Err() != nil {
		return nil
	}
	kids, err := w.readDir(abs, rel)
	if err != nil {
		if rel == "" {
			return err
		}
		if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) {
			w.skip(rel, err)
		}
	}
	var wg sync.WaitGroup
	for i := range kids {
		if kids[i].kind != KindDir {
			continue
		}
		cabs := abs + "/" + kids[i].name
		crel := joinRel(rel, kids[i].name)
		c := &kids[i]
		select {
		case w.sem <- struct{}{}:
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = w.fillDir(cabs, crel, c)
				<-w.sem
			}()
		default:
			_ = w.fillDir(cabs, crel, c)
		}
	}
	wg.Wait()
	if len(kids) > 0 {
		n.kids = &dirKids{list: kids}
	}
	n.hash = dirHash(kids)
	return nil
}

// readDir lists and lstats one directory's entries, leaving out ignored ones,
// sorted by name. Directory children have no hash yet.
func (w *walker) readDir(abs, rel string) ([]node, error) {
	if w.hook != nil {
		if err := w.hook(rel); err != nil {
			return nil, err
		}
	}
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if rel != "" {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := openRetry(abs, flags)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: abs, Err: err}
	}
	defer unix.Close(fd)

	bp := bufPool.Get().(*[]byte)
	np := namePool.Get().(*[]byte)
	names, err := readNames(fd, *bp, (*np)[:0])
	bufPool.Put(bp)
	defer func() { *np = names[:0]; namePool.Put(np) }()
	if err != nil {
		return nil, &fs.PathError{Op: "readdirent", Path: abs, Err: err}
	}
	if len(names) == 0 {
		return nil, nil
	}
	arena := string(names) // one allocation holds every name of this directory
	count := 0
	for _, b := range names {
		if b == 0 {
			count++
		}
	}
	kids := make([]node, 0, count)
	needRel := w.m.exclude != nil || len(w.m.patterns) > 0
	var st unix.Stat_t
	var files, dirs int64
	for off := 0; off < len(names); {
		end := off
		for names[end] != 0 {
			end++
		}
		name := arena[off:end]
		nameZ := names[off : end+1]
		off = end + 1
		if w.m.skipName(name) {
			continue
		}
		if err := lstatAt(fd, nameZ, &st); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // removed while we read
			}
			return nil, &fs.PathError{Op: "lstat", Path: abs + "/" + name, Err: err}
		}
		kind, size, mtime := fromStat(&st)
		if needRel && w.m.skipEntry(joinRel(rel, name), name, kind == KindDir) {
			continue
		}
		nd := node{name: name, kind: kind, size: size, mtime: mtime}
		if kind == KindDir {
			dirs++
		} else {
			files++
			nd.hash = leafHash(kind, size, mtime)
		}
		kids = append(kids, nd)
	}
	w.files.Add(files)
	w.dirs.Add(dirs)
	slices.SortFunc(kids, func(a, b node) int { return strings.Compare(a.name, b.name) })
	return kids, nil
}

func openRetry(p string, flags int) (int, error) {
	for {
		fd, err := unix.Open(p, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// fromStat converts lstat results to the tree's metadata.
func fromStat(st *unix.Stat_t) (Kind, int64, int64) {
	var k Kind
	switch uint32(st.Mode) & unix.S_IFMT {
	case unix.S_IFREG:
		k = KindFile
	case unix.S_IFDIR:
		k = KindDir
	case unix.S_IFLNK:
		k = KindSymlink
	default:
		k = KindOther
	}
	return k, int64(st.Size), unix.TimespecToNsec(st.Mtim)
}
