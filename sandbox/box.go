//go:build unix

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tend-agent/tend/content"
	"github.com/tend-agent/tend/internal/safetext"
	"golang.org/x/sys/unix"
)

// Options configure a Box (and Undo).
type Options struct {
	DryRun    bool             // mutating tools record what they would do and touch nothing
	Trash     Trash            // nil: the OS trash (DefaultTrash)
	BackupDir string           // where content backups of this run go; created on first use
	Now       func() time.Time // clock for ledger timestamps; nil: time.Now
	// StepHook, when set, is called after each write-ahead step of a
	// mutation: "intent" (recorded, not applied), "applied" (not yet
	// confirmed) and "done". Crash tests use it to stop the process there.
	StepHook func(point string)
	// AllowHardLinks lets the tools read and change regular files that have
	// more than one hard link. Off, such a file is refused: its content is
	// shared with another name, which may lie outside the folder.
	AllowHardLinks bool
	// Vision: the model can see pictures, so file_read of an image also
	// attaches the picture (see CallResult).
	Vision bool
	// Deny are tend's own files inside the folder (TEND_HOME, the tend
	// program), as slash paths relative to the folder with symlinks
	// resolved. No tool reaches a path equal to or beneath one, by any
	// spelling or link, or moves, copies or deletes a folder holding one;
	// listings leave them out.
	Deny []string
	// Content caches what documents, photos and archives hold, keyed by
	// path, size, mtime and inode; share one across the passes of a run.
	// nil: a cache for this Box alone.
	Content *content.Cache
	// ContentLimits bound each extraction child; zero: content.DefaultLimits.
	ContentLimits content.Limits
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Box runs the file tools inside one watched folder, recording every
// mutation in a ledger.
type Box struct {
	fs      *fsRoot
	roots   []string // accepted absolute spellings of the folder
	ledger  *Ledger
	opts    Options
	trash   Trash
	mu      sync.Mutex // serialises mutations so Before/After pairs are coherent
	dryDirs map[string]bool
	nbackup int
	content *content.Cache
}

type handler func(b *Box, ctx context.Context, raw json.RawMessage) (string, error)

var handlers = map[string]handler{
	"file_tree":     (*Box).fileTree,
	"file_read":     (*Box).fileRead,
	"file_write":    (*Box).fileWrite,
	"file_edit":     (*Box).fileEdit,
	"file_move":     (*Box).fileMove,
	"file_copy":     (*Box).fileCopy,
	"dir_create":    (*Box).dirCreate,
	"file_delete":   (*Box).fileDelete,
	"file_metadata": (*Box).fileMetadata,
	"file_search":   (*Box).fileSearch,
}

// New opens a Box on root, which must be an existing folder. Symlinks in
// root are resolved once, here. ledger may be nil (nothing is recorded
// then, which only makes sense for read-only use).
func New(root string, ledger *Ledger, opts Options) (*Box, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("opening watched folder %s: %w", root, err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("opening watched folder %s: %w", root, err)
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return nil, fmt.Errorf("opening watched folder %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("watched folder %s is not a folder", root)
	}
	fs, err := openRoot(resolved)
	if err != nil {
		return nil, err
	}
	fs.deny = cleanDeny(opts.Deny)
	if ledger == nil {
		ledger = NewLedger("", "")
	}
	ledger.setPlace(resolved, opts.BackupDir)
	b := &Box{fs: fs, roots: []string{resolved}, ledger: ledger, opts: opts, trash: opts.Trash, dryDirs: map[string]bool{}, content: opts.Content}
	if b.content == nil {
		b.content = content.NewCache()
	}
	if c := filepath.Clean(abs); c != resolved {
		b.roots = append(b.roots, c)
	}
	if b.trash == nil {
		t, err := DefaultTrash(resolved)
		if err != nil {
			fs.close()
			return nil, err
		}
		b.trash = t
	}
	return b, nil
}

// Close releases the folder handle.
func (b *Box) Close() error { return b.fs.close() }

// Root is the watched folder, symlinks resolved.
func (b *Box) Root() string { return b.fs.path }

// Ledger is the ledger the Box records into.
func (b *Box) Ledger() *Ledger { return b.ledger }

// Call runs the tool name with JSON arguments and returns its text result.
// Refused or failed calls return a *ToolError written for the model; a
// cancelled ctx returns ctx.Err().
func (b *Box) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	h, ok := handlers[name]
	if !ok {
		names := make([]string, 0, len(handlers))
		for n := range handlers {
			names = append(names, n)
		}
		sort.Strings(names)
		return "", toolErrf("unknown tool %q; the tools are %s", name, strings.Join(names, ", "))
	}
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage("{}")
	}
	out, err := h(b, ctx, args)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		var le *LedgerError
		if errors.As(err, &le) {
			return "", le
		}
		var te *ToolError
		if !errors.As(err, &te) {
			te = toolErrf("%s failed: %v", name, err)
		}
		// Messages quote names; whatever reached one raw (a name inside a
		// system error) is escaped here so it cannot forge a line.
		return "", &ToolError{Msg: safetext.Inline(te.Msg)}
	}
	return out, nil
}

// decode parses tool arguments into v, explaining the expected shape.
func decode(tool string, raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return toolErrf("the arguments of %s must be a JSON object %s (%v)", tool, argShape[tool], err)
	}
	return nil
}

var argShape = map[string]string{
	"file_tree":     `like {"path": "folder"} (path optional)`,
	"file_read":     `like {"path": "notes/a.txt"}`,
	"file_write":    `like {"path": "notes/a.txt", "content": "text", "overwrite": false}`,
	"file_edit":     `like {"path": "notes/a.txt", "old": "exact text", "new": "replacement"}`,
	"file_move":     `like {"from": "a.txt", "to": "archive/a.txt"}`,
	"file_copy":     `like {"from": "a.txt", "to": "copies/a.txt"}`,
	"dir_create":    `like {"path": "archive/2024"}`,
	"file_delete":   `like {"path": "old.txt"}`,
	"file_metadata": `like {"path": "a.txt"}`,
	"file_search":   `like {"pattern": "*.pdf", "path": "folder", "content": false}`,
}

// rel cleans a path argument; what names the argument in messages.
func (b *Box) rel(tool, what, p string, required bool) (string, error) {
	if required && strings.TrimSpace(p) == "" {
		return "", toolErrf("%s needs %q: the arguments must be a JSON object %s", tool, what, argShape[tool])
	}
	rel, err := cleanPath(b.roots, p)
	if err == nil && b.fs.denied(rel) {
		return "", describeErr(rel, errTendOwn)
	}
	return rel, err
}

// record adds a dry-run effect to the ledger.
func (b *Box) record(e Effect) Effect {
	e.Time = b.opts.now()
	e.DryRun = b.opts.DryRun
	return b.ledger.add(e)
}

// step makes one real change write-ahead: e (with any backup already on
// disk) is recorded in the journal before apply runs, and confirmed with
// what apply returns after. want is the state e's target (To for a move or
// copy, else Path) will be in once applied. what names the change for the
// model when the ledger cannot be written; then nothing is applied.
func (b *Box) step(e Effect, want Meta, what string, apply func(Effect) (Effect, error)) (Effect, error) {
	e.Time = b.opts.now()
	e, err := b.ledger.intend(e, want)
	if err != nil {
		if e.Backup != "" {
			os.Remove(filepath.Join(b.opts.BackupDir, e.Backup))
		}
		return e, &LedgerError{What: what, Err: bareErr(err)}
	}
	b.hook("intent")
	done, err := apply(e)
	if err != nil {
		b.ledger.abort(e.Seq)
		return e, err
	}
	b.hook("applied")
	done.Seq, done.Time = e.Seq, e.Time
	if err := b.ledger.commit(done); err != nil {
		return done, &LedgerError{What: what, Applied: true, Err: bareErr(err)}
	}
	b.hook("done")
	return done, nil
}

func (b *Box) hook(point string) {
	if b.opts.StepHook != nil {
		b.opts.StepHook(point)
	}
}

// bareErr drops the file name from a system error: the model needs the
// reason (no space left), not where tend keeps its files.
func bareErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// backup copies the file name inside dirfd into the backup folder and
// returns the backup's file name there.
func (b *Box) backup(dirfd int, name string) (string, error) {
	if b.opts.BackupDir == "" {
		return "", toolErrf("cannot back up %q: no backup folder is configured for this run, so nothing is replaced", name)
	}
	f, err := openFileAt(dirfd, name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b.nbackup++
	safe := unsafeName.ReplaceAllString(name, "_")
	if len(safe) > 80 {
		safe = safe[:80]
	}
	bname := fmt.Sprintf("%04d-%s-%s.bak", b.nbackup, randHex(4), safe)
	err = os.MkdirAll(b.opts.BackupDir, 0o700)
	if err == nil {
		err = atomicWriteFile(filepath.Join(b.opts.BackupDir, bname), f, 0o600)
	}
	if err != nil {
		// tend's own storage failed, not the folder: the change must not
		// be made, and the run stops.
		return "", &LedgerError{What: fmt.Sprintf("the change to %q", name), Err: fmt.Errorf("backing up %s: %w", name, bareErr(err))}
	}
	return bname, nil
}

// mkdirAll makes sure the folder rel exists (like mkdir -p), recording each
// folder it creates, and returns a handle on it. In a dry run it records
// the folders it would create and returns -1 when rel does not exist yet.
func (b *Box) mkdirAll(rel string) (int, []string, error) {
	fd, err := b.fs.openDir("")
	if err != nil {
		return -1, nil, err
	}
	var made []string
	comps := splitComponents(rel)
	for i, c := range comps {
		prefix := strings.Join(comps[:i+1], "/")
		if fd < 0 { // dry run below a folder that does not exist yet
			if !b.dryDirs[prefix] {
				b.dryDirs[prefix] = true
				b.record(Effect{Op: OpMkdir, Path: prefix, After: Meta{Exists: true, Kind: "dir", Mode: 0o755}})
				made = append(made, prefix)
			}
			continue
		}
		nfd, err := b.fs.openDir(prefix)
		if err == nil {
			unix.Close(fd)
			fd = nfd
			continue
		}
		if !errors.Is(err, unix.ENOENT) {
			unix.Close(fd)
			return -1, made, describeErr(prefix, err)
		}
		if b.opts.DryRun {
			unix.Close(fd)
			fd = -1
			if !b.dryDirs[prefix] {
				b.dryDirs[prefix] = true
				b.record(Effect{Op: OpMkdir, Path: prefix, After: Meta{Exists: true, Kind: "dir", Mode: 0o755}})
				made = append(made, prefix)
			}
			continue
		}
		if err := b.refuseEntry(fd, c, prefix); err != nil {
			unix.Close(fd)
			return -1, made, err
		}
		created := false
		_, err = b.step(Effect{Op: OpMkdir, Path: prefix}, Meta{Exists: true, Kind: "dir"}, fmt.Sprintf("creating folder %q", prefix),
			func(e Effect) (Effect, error) {
				if err := unix.Mkdirat(fd, c, 0o755); err != nil {
					return e, err
				}
				created = true
				e.After, _ = metaAt(fd, c, false)
				return e, nil
			})
		if err != nil && !(errors.Is(err, unix.EEXIST) && !created) {
			unix.Close(fd)
			return -1, made, describeErr(prefix, err)
		}
		nfd, err = openDirAt(fd, c)
		unix.Close(fd)
		if err != nil {
			return -1, made, describeErr(prefix, err)
		}
		fd = nfd
		if created {
			made = append(made, prefix)
		}
	}
	return fd, made, nil
}

// refuseEntry fails when the entry name inside dirfd (rel, as the model
// spelled it) is one of tend's own paths.
func (b *Box) refuseEntry(dirfd int, name, rel string) error {
	if len(b.fs.deny) == 0 {
		return nil
	}
	real, err := b.fs.entryReal(dirfd, name)
	if err == nil && b.fs.denied(real) {
		err = errTendOwn
	}
	if err != nil {
		return describeErr(rel, err)
	}
	return nil
}

// inDryDir reports whether rel lies in a folder only planned by a dry run.
func (b *Box) inDryDir(rel string) bool {
	for d := range b.dryDirs {
		if within(rel, d) {
			return true
		}
	}
	return false
}

// openExisting opens rel's parent and reads rel's metadata (with its
// content hash), failing with a tool error when rel does not exist. The
// caller closes dirfd.
func (b *Box) openExisting(rel string) (dirfd int, base string, before Meta, err error) {
	dirfd, base, err = b.fs.openParent(rel)
	if err != nil {
		return -1, "", Meta{}, err
	}
	before, err = metaAt(dirfd, base, true)
	if err == nil && !before.Exists {
		err = unix.ENOENT
	}
	if err != nil {
		unix.Close(dirfd)
		return -1, "", Meta{}, describeErr(rel, err)
	}
	return dirfd, base, before, nil
}
