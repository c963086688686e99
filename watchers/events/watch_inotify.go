//go:build linux

package events

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// inotifySource watches every directory of the tree with inotify. It owns
// its state from one goroutine (run); only Mode and Reason are shared.
type inotifySource struct {
	runner
	opts Options

	// inject feeds an error into the error path (tests).
	inject chan error
	// query asks the run goroutine for the watched directories (tests).
	query chan chan []string

	// Owned by the run goroutine after New returns.
	w        *fsnotify.Watcher
	dirs     map[string]*dirNode
	fallback string // non-empty: switch to polling with this reason
}

func (s *inotifySource) LastEventID() uint64 { return 0 }

// New starts the platform source: inotify, falling back to polling when
// inotify runs out of watches (ENOSPC) or instances (EMFILE), at start or
// later, with Reason saying why. When New returns every folder of the tree
// is watched, so a baseline fingerprint taken afterwards misses nothing. A
// root that is missing or unreadable is not an error: the first Notice
// carries a RootGone error and the source waits for the folder to return.
func New(ctx context.Context, opts Options) (Source, error) {
	opts, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &inotifySource{
		runner: runner{b: newBatcher(maxBatch), cancel: cancel, done: make(chan struct{})},
		opts:   opts,
		inject: make(chan error),
		query:  make(chan chan []string),
	}
	s.st.set("inotify", "")
	if err := s.start(); err != nil {
		s.problem(err)
	}
	var p *poller
	if s.fallback != "" {
		p = s.toPoll()
	}
	go s.b.run(ctx)
	go s.run(ctx, p)
	return s, nil
}

// start creates the inotify instance and watches the whole tree.
func (s *inotifySource) start() error {
	if err := checkRoot(s.opts.Root); err != nil {
		return err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("starting inotify for %s: %w", s.opts.Root, err)
	}
	s.w, s.dirs = w, make(map[string]*dirNode)
	if err := s.addTree(s.opts.Root, false); err != nil {
		s.stop()
		return err
	}
	return nil
}

// stop closes the inotify instance and forgets all watches.
func (s *inotifySource) stop() {
	if s.w != nil {
		_ = s.w.Close()
	}
	s.w, s.dirs = nil, nil
}

// problem sorts an error from starting or adding watches: a limit switches
// to polling, a vanished root waits for it, anything else is reported.
func (s *inotifySource) problem(err error) {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		s.fallback = pollReason("inotify watch limit reached (ENOSPC): raise fs.inotify.max_user_watches, e.g. sudo sysctl fs.inotify.max_user_watches=524288", s.opts.PollInterval)
	case errors.Is(err, syscall.EMFILE):
		s.fallback = pollReason("out of inotify instances or file descriptors (EMFILE): raise fs.inotify.max_user_instances (e.g. sudo sysctl fs.inotify.max_user_instances=1024) and fs.inotify.max_user_watches (e.g. sudo sysctl fs.inotify.max_user_watches=524288)", s.opts.PollInterval)
	case RootGone(err):
		s.stop()
		s.opts.Logger.Warn("watched folder is gone or unreadable", "root", s.opts.Root, "err", err)
		s.b.setErr(err)
		return
	case errors.Is(err, fsnotify.ErrEventOverflow):
		s.opts.Logger.Info("inotify queue overflowed; asking for a full rescan", "root", s.opts.Root)
		s.b.setRescan()
		return
	default:
		s.opts.Logger.Warn("inotify error", "root", s.opts.Root, "err", err)
		s.b.setErr(fmt.Errorf("watching %s: %w", s.opts.Root, err))
		return
	}
	s.opts.Logger.Warn("falling back to polling", "root", s.opts.Root, "reason", s.fallback)
}

// toPoll closes inotify and prepares the poller (baseline taken) that
// replaces it; the mode changes only once the baseline is complete.
func (s *inotifySource) toPoll() *poller {
	s.stop()
	p := newPoller(s.opts, s.b)
	p.scan()
	s.st.set("poll", s.fallback)
	if !p.gone {
		p.b.setRescan()
	}
	return p
}

func (s *inotifySource) run(ctx context.Context, p *poller) {
	defer close(s.done)
	defer s.stop()
	for p == nil {
		if s.w == nil {
			if !s.waitRoot(ctx) {
				return
			}
		} else if !s.watch(ctx) {
			return
		}
		if s.fallback != "" {
			p = s.toPoll()
		}
	}
	p.loop(ctx)
}

// watch handles inotify events until ctx ends (false) or the watcher is
// lost (root gone or a limit hit: true).
func (s *inotifySource) watch(ctx context.Context) bool {
	for s.w != nil && s.fallback == "" {
		select {
		case <-ctx.Done():
			return false
		case ev, ok := <-s.w.Events:
			if !ok {
				s.problem(&RootError{Root: s.opts.Root, Err: errors.New("inotify stopped")})
				continue
			}
			s.handle(ev)
		case err, ok := <-s.w.Errors:
			if ok {
				s.problem(err)
			}
		case err := <-s.inject:
			s.problem(err)
		case reply := <-s.query:
			dirs := make([]string, 0, len(s.dirs))
			for d := range s.dirs {
				dirs = append(dirs, d)
			}
			reply <- dirs
		}
	}
	return true
}

// waitRoot waits for the root to come back; then it re-establishes the
// watches and asks for a rescan. Only this state ticks.
func (s *inotifySource) waitRoot(ctx context.Context) bool {
	return awaitRoot(ctx, s.opts, func() bool {
		err := s.start()
		if err == nil {
			s.opts.Logger.Info("watched folder is back", "root", s.opts.Root)
			s.b.recovered()
			return true
		}
		if !RootGone(err) {
			s.problem(err)
			return s.fallback != ""
		}
		return false
	})
}

// handle applies one inotify event.
func (s *inotifySource) handle(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	if name == s.opts.Root {
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Chmod) {
			s.rootChanged(ev)
		}
		return
	}
	_, wasDir := s.dirs[name]
	switch {
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		if wasDir {
			s.dropTree(name)
		}
		if !s.opts.skipped(name, wasDir) {
			s.b.add(name)
		}
	case ev.Has(fsnotify.Create):
		s.created(name)
	case ev.Has(fsnotify.Chmod) && !wasDir:
		// A folder that was unreadable may have become readable.
		s.created(name)
	default:
		if !s.opts.skipped(name, wasDir) {
			s.b.add(name)
		}
	}
}

// created reports a new path; a new directory is watched first and then
// scanned, so files written into it before the watch existed are reported.
func (s *inotifySource) created(name string) {
	fi, err := os.Lstat(name)
	if err != nil {
		if !s.opts.skipped(name, false) {
			s.b.add(name) // already gone again: still a change
		}
		return
	}
	isDir := fi.IsDir()
	if s.opts.skipped(name, isDir) {
		return
	}
	s.b.add(name)
	if isDir && s.opts.Recursive {
		if err := s.addTree(name, true); err != nil {
			s.problem(err)
		}
	}
}

// rootChanged handles the root being removed, renamed or re-permissioned.
func (s *inotifySource) rootChanged(ev fsnotify.Event) {
	err := checkRoot(s.opts.Root)
	if err == nil && ev.Has(fsnotify.Chmod) {
		return // still readable
	}
	s.stop()
	if err == nil {
		// Replaced by another folder already: watch that one.
		if err = s.start(); err == nil {
			s.b.recovered()
			return
		}
	}
	s.problem(err)
}
