package events

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Notice is one batch of what the source saw.
type Notice struct {
	// Paths are absolute paths that changed (files or dirs), deduplicated
	// within a batch and sorted.
	Paths []string
	// Rescan means the source lost track (inotify queue overflow, fsevents
	// must-scan-subdirs, poll start, root back): the consumer must
	// re-fingerprint fully.
	Rescan bool
	// Err is a problem with the source; RootGone(Err) reports whether the
	// watched root vanished or became unreadable.
	Err error
}

// Options configure a Source.
type Options struct {
	Root      string // absolute, cleaned
	Recursive bool
	// Skip reports whether a relative slash path must not be watched nor
	// reported (ignored dirs, nested watchers' subtrees). May be nil.
	Skip         func(rel string, isDir bool) bool
	PollInterval time.Duration // for the polling source (default 2s)
	ResumeID     uint64        // macOS fsevents: resume from this event id
	Logger       *slog.Logger

	// newTicker replaces time.NewTicker in tests.
	newTicker func(d time.Duration) (<-chan time.Time, func())
	// addWatch wraps adding one kernel watch, so tests can inject ENOSPC.
	addWatch func(path string, add func(string) error) error
}

// Source is a running event source for one watched folder.
type Source interface {
	// Notices delivers batches; it is closed when the source stops.
	Notices() <-chan Notice
	// Mode is "inotify", "fsevents" or "poll".
	Mode() string
	// Reason says why this mode (empty normally).
	Reason() string
	// LastEventID is the last FSEvents id seen (0 for other sources).
	LastEventID() uint64
	// Close stops the source and closes Notices.
	Close() error
}

// DefaultPollInterval is the polling period when Options.PollInterval is 0.
const DefaultPollInterval = 2 * time.Second

// maxBatch is the number of distinct paths above which a batch collapses to
// a Rescan.
const maxBatch = 10000

// ErrRootGone is matched (errors.Is) by errors about the watched root.
var ErrRootGone = errors.New("watched folder is gone or unreadable")

// RootError reports that the watched root vanished or cannot be read.
type RootError struct {
	Root string
	Err  error
}

func (e *RootError) Error() string {
	return fmt.Sprintf("watched folder %s is gone or unreadable (%v); watching resumes when it is back", e.Root, e.Err)
}

func (e *RootError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrRootGone) true.
func (e *RootError) Is(target error) bool { return target == ErrRootGone }

// RootGone reports whether err says the watched root vanished or became
// unreadable.
func RootGone(err error) bool { return err != nil && errors.Is(err, ErrRootGone) }

// checkRoot reports a *RootError when root is missing, not a directory or
// not listable.
func checkRoot(root string) error {
	fi, err := os.Stat(root)
	if err != nil {
		return &RootError{Root: root, Err: err}
	}
	if !fi.IsDir() {
		return &RootError{Root: root, Err: errors.New("not a directory")}
	}
	f, err := os.Open(root)
	if err != nil {
		return &RootError{Root: root, Err: err}
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err != nil && !errors.Is(err, io.EOF) {
		return &RootError{Root: root, Err: err}
	}
	return nil
}

// normalize validates opts and fills defaults.
func (o Options) normalize() (Options, error) {
	if o.Root == "" || !filepath.IsAbs(o.Root) {
		return o, fmt.Errorf("watching %q: the folder must be an absolute path", o.Root)
	}
	o.Root = filepath.Clean(o.Root)
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

func (o *Options) ticker(d time.Duration) (<-chan time.Time, func()) {
	if o.newTicker != nil {
		return o.newTicker(d)
	}
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// rel returns the slash path of p relative to the root ("" for the root).
func (o *Options) rel(p string) string {
	if p == o.Root {
		return ""
	}
	r := strings.TrimPrefix(p, o.Root)
	r = strings.TrimPrefix(r, string(filepath.Separator))
	return filepath.ToSlash(r)
}

// skipped reports whether Skip excludes p.
func (o *Options) skipped(p string, isDir bool) bool {
	if o.Skip == nil || p == o.Root {
		return false
	}
	return o.Skip(o.rel(p), isDir)
}

// join appends a name to a directory path without re-cleaning.
func join(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// state holds a source's mode and reason, read from other goroutines.
type state struct {
	mu     sync.Mutex
	mode   string
	reason string
}

func (s *state) set(mode, reason string) {
	s.mu.Lock()
	s.mode, s.reason = mode, reason
	s.mu.Unlock()
}

func (s *state) get() (string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode, s.reason
}

// runner is the common lifecycle of a source: a context, a worker
// goroutine, the batcher's sender goroutine and an idempotent Close.
type runner struct {
	b      *batcher
	st     state
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

func (r *runner) Notices() <-chan Notice { return r.b.out }

func (r *runner) Mode() string { m, _ := r.st.get(); return m }

func (r *runner) Reason() string { _, why := r.st.get(); return why }

func (r *runner) Close() error {
	r.once.Do(func() {
		r.cancel()
		<-r.done
		<-r.b.stopped
	})
	return nil
}

// awaitRoot checks every PollInterval whether the root is back and, when
// it is, calls restart; it returns true once restart reports done, false
// when ctx ends.
func awaitRoot(ctx context.Context, opts Options, restart func() (done bool)) bool {
	tick, stop := opts.ticker(opts.PollInterval)
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-tick:
		}
		if checkRoot(opts.Root) == nil && restart() {
			return true
		}
	}
}
