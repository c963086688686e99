package events

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"time"
)

// pollEntry is what the poller remembers of one path.
type pollEntry struct {
	size  int64
	mtime int64
	kind  fs.FileMode
	gen   uint32
}

// poller walks the tree every interval and reports what differs from the
// previous walk. It keeps one map: entries are stamped with the walk's
// generation, and those not stamped after a walk were removed.
type poller struct {
	opts   Options
	b      *batcher
	prev   map[string]pollEntry
	gen    uint32
	primed bool
	gone   bool
	denied map[string]bool
}

func newPoller(opts Options, b *batcher) *poller {
	return &poller{opts: opts, b: b, prev: make(map[string]pollEntry), denied: make(map[string]bool)}
}

// loop polls on every tick until ctx ends.
func (p *poller) loop(ctx context.Context) {
	tick, stop := p.opts.ticker(p.opts.PollInterval)
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			p.scan()
		}
	}
}

// scan walks the tree once and reports differences.
func (p *poller) scan() {
	if err := checkRoot(p.opts.Root); err != nil {
		if !p.gone {
			p.gone, p.primed = true, false
			clear(p.prev)
			p.opts.Logger.Warn("watched folder is gone or unreadable", "root", p.opts.Root, "err", err)
			p.b.setErr(err)
		}
		return
	}
	if p.gone {
		p.gone, p.primed = false, true
		p.walk(false)
		p.b.recovered()
		p.opts.Logger.Info("watched folder is back", "root", p.opts.Root)
		return
	}
	p.walk(p.primed)
	p.primed = true
}

func (p *poller) walk(report bool) {
	p.gen++
	gen, root := p.gen, p.opts.Root
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != root && errors.Is(err, fs.ErrPermission) && !p.denied[path] {
				p.denied[path] = true
				p.opts.Logger.Warn("skipping a folder that cannot be read", "path", path, "err", err)
			}
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if path == root {
			return nil
		}
		isDir := d.IsDir()
		if p.opts.skipped(path, isDir) {
			if isDir {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // vanished meanwhile: the sweep reports it
		}
		e := pollEntry{size: info.Size(), mtime: info.ModTime().UnixNano(), kind: info.Mode().Type(), gen: gen}
		if isDir {
			e.size = 0 // directory sizes are filesystem noise
		}
		old, ok := p.prev[path]
		if report && (!ok || old.size != e.size || old.mtime != e.mtime || old.kind != e.kind) {
			p.b.add(path)
		}
		p.prev[path] = e
		if isDir && !p.opts.Recursive {
			return filepath.SkipDir
		}
		return nil
	})
	for path, e := range p.prev {
		if e.gen != gen {
			delete(p.prev, path)
			if report {
				p.b.add(path)
			}
		}
	}
}

// pollSource is a Source that only polls.
type pollSource struct {
	runner
}

func (s *pollSource) LastEventID() uint64 { return 0 }

// NewPoll starts a polling source: every PollInterval it walks the tree
// (without following symlinks, honouring Skip) and reports paths whose
// size, mtime or kind changed. The first Notice is a Rescan.
func NewPoll(ctx context.Context, opts Options) (Source, error) {
	return newPoll(ctx, opts, "")
}

func newPoll(ctx context.Context, opts Options, reason string) (Source, error) {
	opts, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &pollSource{runner{b: newBatcher(maxBatch), cancel: cancel, done: make(chan struct{})}}
	s.st.set("poll", reason)
	p := newPoller(opts, s.b)
	p.scan() // the baseline, or the root-gone error
	if !p.gone {
		s.b.setRescan() // anything may have changed before polling began
	}
	go s.b.run(ctx)
	go func() {
		defer close(s.done)
		p.loop(ctx)
	}()
	return s, nil
}

// pollReason is the Reason of a polling fallback.
func pollReason(why string, every time.Duration) string {
	return why + ": polling every " + every.String()
}
