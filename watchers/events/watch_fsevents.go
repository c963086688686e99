//go:build darwin && cgo

package events

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsevents"
)

// fseventsSource watches the root with one FSEvents stream.
type fseventsSource struct {
	runner
	opts     Options
	realRoot string // the root with symlinks resolved (/tmp is /private/tmp)
	lastID   atomic.Uint64
	es       *fsevents.EventStream // owned by the run goroutine
}

const dropped = fsevents.MustScanSubDirs | fsevents.UserDropped | fsevents.KernelDropped

// New starts an FSEvents stream on the root, resuming from ResumeID when it
// is set. It falls back to polling when the stream cannot be created.
func New(ctx context.Context, opts Options) (Source, error) {
	opts, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	s := &fseventsSource{
		runner: runner{b: newBatcher(maxBatch), cancel: cancel, done: make(chan struct{})},
		opts:   opts,
	}
	s.lastID.Store(opts.ResumeID)
	s.st.set("fsevents", "")
	if err := checkRoot(opts.Root); err != nil {
		s.b.setErr(err)
	} else if err := s.startStream(); err != nil {
		cancel()
		return newPoll(parent, opts, pollReason("FSEvents could not start ("+err.Error()+")", opts.PollInterval))
	}
	go s.b.run(ctx)
	go s.run(ctx)
	return s, nil
}

func (s *fseventsSource) LastEventID() uint64 { return s.lastID.Load() }

func (s *fseventsSource) startStream() error {
	s.realRoot = s.opts.Root
	if r, err := filepath.EvalSymlinks(s.opts.Root); err == nil {
		s.realRoot = r
	}
	id := s.lastID.Load()
	es := &fsevents.EventStream{
		Events:  make(chan []fsevents.Event, 64),
		Paths:   []string{s.realRoot},
		Flags:   fsevents.FileEvents | fsevents.WatchRoot,
		Latency: 50 * time.Millisecond,
		Resume:  id != 0,
		EventID: id,
	}
	if err := es.Start(); err != nil {
		return err
	}
	s.es = es
	return nil
}

func (s *fseventsSource) stopStream() {
	if s.es != nil {
		s.es.Stop()
		s.es = nil
	}
}

func (s *fseventsSource) run(ctx context.Context) {
	defer close(s.done)
	defer s.stopStream()
	for {
		if s.es == nil {
			if !s.waitRoot(ctx) {
				return
			}
			continue
		}
		select {
		case <-ctx.Done():
			return
		case evs := <-s.es.Events:
			s.handle(evs)
		}
	}
}

// waitRoot waits for the root to come back, then restarts the stream.
func (s *fseventsSource) waitRoot(ctx context.Context) bool {
	return awaitRoot(ctx, s.opts, func() bool {
		s.lastID.Store(0) // events of the old folder are meaningless now
		if err := s.startStream(); err != nil {
			s.opts.Logger.Warn("restarting FSEvents", "root", s.opts.Root, "err", err)
			return false
		}
		s.b.recovered()
		return true
	})
}

func (s *fseventsSource) handle(evs []fsevents.Event) {
	for _, ev := range evs {
		if ev.ID > s.lastID.Load() {
			s.lastID.Store(ev.ID)
		}
		switch {
		case ev.Flags&fsevents.HistoryDone != 0:
			continue
		case ev.Flags&dropped != 0:
			s.opts.Logger.Info("FSEvents dropped events; asking for a full rescan", "root", s.opts.Root)
			s.b.setRescan()
			continue
		case ev.Flags&fsevents.RootChanged != 0:
			if err := checkRoot(s.opts.Root); err != nil {
				s.stopStream()
				s.opts.Logger.Warn("watched folder is gone or unreadable", "root", s.opts.Root, "err", err)
				s.b.setErr(err)
				return
			}
			s.b.setRescan()
			continue
		}
		p := s.localPath(ev.Path)
		if p == "" || p == s.opts.Root {
			continue
		}
		isDir := ev.Flags&fsevents.ItemIsDir != 0
		if s.skippedTree(p, isDir) {
			continue
		}
		s.b.add(p)
	}
}

// localPath maps an event path to one under Options.Root ("" if outside).
func (s *fseventsSource) localPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	p = filepath.Clean(p)
	for _, base := range []string{s.realRoot, s.opts.Root} {
		if p == base {
			return s.opts.Root
		}
		if strings.HasPrefix(p, base+"/") {
			return s.opts.Root + p[len(base):]
		}
	}
	return ""
}

// skippedTree applies Skip to p and its ancestors: FSEvents watches the
// whole tree, so skipped subtrees are filtered here.
func (s *fseventsSource) skippedTree(p string, isDir bool) bool {
	rel := s.opts.rel(p)
	if !s.opts.Recursive && strings.Contains(rel, "/") {
		return true
	}
	if s.opts.Skip == nil {
		return false
	}
	if s.opts.Skip(rel, isDir) {
		return true
	}
	for i := strings.LastIndexByte(rel, '/'); i > 0; i = strings.LastIndexByte(rel[:i], '/') {
		if s.opts.Skip(rel[:i], true) {
			return true
		}
	}
	return false
}
