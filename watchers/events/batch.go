package events

import (
	"context"
	"sort"
	"sync"
)

// batcher accumulates what a source saw until the consumer takes it. The
// worker adds; a sender goroutine hands one Notice at a time to the
// consumer, so everything that arrives while the consumer is busy is
// coalesced into the next Notice. Memory is bounded: past limit distinct
// paths the batch collapses to Rescan.
type batcher struct {
	mu     sync.Mutex
	paths  map[string]struct{}
	rescan bool
	err    error
	limit  int

	kick    chan struct{}
	out     chan Notice
	stopped chan struct{}
}

func newBatcher(limit int) *batcher {
	return &batcher{
		limit:   limit,
		kick:    make(chan struct{}, 1),
		out:     make(chan Notice),
		stopped: make(chan struct{}),
	}
}

func (b *batcher) signal() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// add records one changed path.
func (b *batcher) add(p string) {
	b.mu.Lock()
	if !b.rescan {
		if b.paths == nil {
			b.paths = make(map[string]struct{})
		}
		b.paths[p] = struct{}{}
		if len(b.paths) > b.limit {
			b.paths, b.rescan = nil, true
		}
	}
	b.mu.Unlock()
	b.signal()
}

// setRescan asks the consumer for a full re-fingerprint; paths are subsumed.
func (b *batcher) setRescan() {
	b.mu.Lock()
	b.paths, b.rescan = nil, true
	b.mu.Unlock()
	b.signal()
}

// setErr reports a source problem.
func (b *batcher) setErr(err error) {
	b.mu.Lock()
	b.err = err
	b.mu.Unlock()
	b.signal()
}

// recovered says the root is back: an unsent error is obsolete and the
// consumer must rescan.
func (b *batcher) recovered() {
	b.mu.Lock()
	b.err, b.paths, b.rescan = nil, nil, true
	b.mu.Unlock()
	b.signal()
}

func (b *batcher) take() (Notice, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.paths) == 0 && !b.rescan && b.err == nil {
		return Notice{}, false
	}
	n := Notice{Rescan: b.rescan, Err: b.err}
	if !b.rescan && len(b.paths) > 0 {
		n.Paths = make([]string, 0, len(b.paths))
		for p := range b.paths {
			n.Paths = append(n.Paths, p)
		}
		sort.Strings(n.Paths)
	}
	b.paths, b.rescan, b.err = nil, false, nil
	return n, true
}

// run sends batches until ctx ends, then closes out.
func (b *batcher) run(ctx context.Context) {
	defer close(b.stopped)
	defer close(b.out)
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.kick:
		}
		n, ok := b.take()
		if !ok {
			continue
		}
		select {
		case b.out <- n:
		case <-ctx.Done():
			return
		}
	}
}
