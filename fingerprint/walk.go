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
	w := newWalker(ctx, abs, m, opts.openDirHook)
	fd, err := w.openDir(unix.AT_FDCWD, abs, "")
	if err != nil {
		return nil, fmt.Errorf("fingerprinting %s: %w", abs, err)
	}
	if err := w.fillDir(fd, "", &t.top); err != nil {
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
	ctx     context.Context
	root    string
	m       *matcher
	hook    func(rel string) error
	workers int

	// The shared stack of directories to read, guarded by mu.
	cond    *sync.Cond
	stack   []dirJob
	pending int     // directories on the stack or being read
	done    []*node // directories read, parents before children
	topErr  error
	files   atomic.Int64
	dirs    atomic.Int64

	mu    sync.Mutex
	skips []Skip
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

var namePool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

func newWalker(ctx context.Context, root string, m *matcher, hook func(string) error) *walker {
	w := &walker{ctx: ctx, root: root, m: m, hook: hook, workers: 2 * runtime.GOMAXPROCS(0)}
	w.cond = sync.NewCond(&w.mu)
	return w
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

// openDir opens the directory name relative to dirfd (unix.AT_FDCWD for an
// absolute name). Below the root a final symlink is never followed.
func (w *walker) openDir(dirfd int, name, rel string) (int, error) {
	if w.hook != nil {
		if err := w.hook(rel); err != nil {
			return -1, err
		}
	}
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if rel != "" {
		flags |= unix.O_NOFOLLOW
	}
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err == nil {
			return fd, nil
		}
		if err != unix.EINTR {
			return -1, &fs.PathError{Op: "open", Path: w.abs(rel), Err: err}
		}
	}
}

func (w *walker) abs(rel string) string { return absPath(w.root, rel) }

// absPath joins the root and a relative path without cleaning either.
func absPath(root, rel string) string {
	switch {
	case rel == "":
		return root
	case strings.HasSuffix(root, "/"):
		return root + rel
	}
	return root + "/" + rel
}

// openFailed records why a subdirectory could not be opened; one that
// vanished meanwhile is simply left empty.
func (w *walker) openFailed(rel string, err error) {
	if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) && !errors.Is(err, unix.ELOOP) {
		w.skip(rel, err)
	}
}

// maxEagerOpen bounds how many subdirectories are opened relative to their
// parent's descriptor before it is closed (saving a path lookup each); in
// wider directories they are opened by path when their turn comes.
const maxEagerOpen = 64

// dirJob is a directory waiting to be read: its node (inside its parent's
// children, which no longer move), its relative path and, when it was
// opened already, its descriptor (-1 otherwise).
type dirJob struct {
	n   *node
	rel string
	fd  int
}

// fillDir reads the open directory fd (and closes it) and everything below
// it, with a pool of workers sharing one stack of directories to read, then
// hashes the directories bottom-up. n's own metadata is already set. Only
// an error reading n itself is returned; below it errors become skips.
func (w *walker) fillDir(fd int, rel string, n *node) error {
	w.stack = append(w.stack[:0], dirJob{n: n, rel: rel, fd: fd})
	w.pending = 1
	w.done = w.done[:0]
	w.topErr = nil
	workers := w.workers
	var wg sync.WaitGroup
	for i := 1; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work(rel)
		}()
	}
	w.work(rel)
	wg.Wait()
	// Every directory was read after its parent, so in reverse order each
	// one's subdirectories are hashed before it.
	for i := len(w.done) - 1; i >= 0; i-- {
		d := w.done[i]
		d.hash = dirHash(d.children())
	}
	return w.topErr
}

// work takes directories off the shared stack until none are left.
func (w *walker) work(top string) {
	var subs []dirJob
	w.mu.Lock()
	for {
		for len(w.stack) == 0 && w.pending > 0 {
			w.cond.Wait()
		}
		if w.pending == 0 {
			w.mu.Unlock()
			return
		}
		job := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.mu.Unlock()

		subs = w.readJob(job, job.rel == top, subs[:0])

		w.mu.Lock()
		w.done = append(w.done, job.n)
		w.stack = append(w.stack, subs...)
		w.pending += len(subs) - 1
		switch {
		case w.pending == 0:
			w.cond.Broadcast()
		case len(subs) > 1:
			w.cond.Broadcast()
		case len(subs) == 1:
			w.cond.Signal()
		}
	}
}

// readJob reads one directory, sets its children and returns the jobs for
// its subdirectories, appended to subs.
func (w *walker) readJob(job dirJob, isTop bool, subs []dirJob) []dirJob {
	fd := job.fd
	if fd < 0 {
		var err error
		if fd, err = w.openDir(unix.AT_FDCWD, w.abs(job.rel), job.rel); err != nil {
			w.openFailed(job.rel, err)
			return subs
		}
	}
	if w.ctx.Err() != nil {
		unix.Close(fd)
		return subs
	}
	kids, err := w.readDir(fd, job.rel)
	if err != nil {
		unix.Close(fd)
		if isTop {
			w.mu.Lock()
			w.topErr = err
			w.mu.Unlock()
		} else {
			w.openFailed(job.rel, err)
		}
		return subs
	}
	if len(kids) > 0 {
		job.n.kids = &dirKids{list: kids}
	}
	if w.m.nonRecursive {
		for i := range kids {
			if kids[i].kind == KindDir {
				kids[i].hash = dirHash(nil) // recorded, never read
			}
		}
		unix.Close(fd)
		return subs
	}
	ndirs := 0
	for i := range kids {
		if kids[i].kind == KindDir {
			ndirs++
		}
	}
	eager := ndirs <= maxEagerOpen
	for i := range kids {
		c := &kids[i]
		if c.kind != KindDir {
			continue
		}
		crel := joinRel(job.rel, c.name)
		cfd := -1
		if eager {
			var err error
			if cfd, err = w.openDir(fd, c.name, crel); err != nil {
				w.openFailed(crel, err)
				c.hash = dirHash(nil)
				continue
			}
		}
		subs = append(subs, dirJob{n: c, rel: crel, fd: cfd})
	}
	unix.Close(fd)
	return subs
}

// readDir lists and lstats the entries of the open directory fd, leaving out
// ignored ones, sorted by name. Directory children have no hash yet.
func (w *walker) readDir(fd int, rel string) ([]node, error) {
	if w.m.nonRecursive && rel != "" {
		return nil, nil // a subfolder's contents are not part of the tree
	}
	bp := bufPool.Get().(*[]byte)
	np := namePool.Get().(*[]byte)
	names, err := readNames(fd, *bp, (*np)[:0])
	bufPool.Put(bp)
	defer func() { *np = names[:0]; namePool.Put(np) }()
	if err != nil {
		return nil, &fs.PathError{Op: "readdirent", Path: w.abs(rel), Err: err}
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
			return nil, &fs.PathError{Op: "lstat", Path: w.abs(joinRel(rel, name)), Err: err}
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
