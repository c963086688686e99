package watchers

import (
	"log/slog"
	"sync"

	"github.com/tend-agent/tend/fingerprint"
)

// treeSaver persists the baseline fingerprint off the engine goroutine:
// writing a tree of 150,000 entries takes several milliseconds that the
// watcher should not spend before it is idle again. Trees are immutable,
// so an old one can be written while the engine moves on; saves coalesce
// to the newest tree, and wait flushes before the engine stops.
type treeSaver struct {
	path string
	log  *slog.Logger

	mu      sync.Mutex
	next    *fingerprint.Tree
	running bool
	wg      sync.WaitGroup
}

// put schedules t to be written, replacing any tree not yet written.
func (s *treeSaver) put(t *fingerprint.Tree) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = t
	if s.running {
		return
	}
	s.running = true
	s.wg.Add(1)
	go s.run()
}

func (s *treeSaver) run() {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		t := s.next
		s.next = nil
		if t == nil {
			s.running = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		if err := t.Save(s.path); err != nil {
			s.log.Error("saving baseline", "err", err)
		}
	}
}

// wait returns once every scheduled tree is written.
func (s *treeSaver) wait() { s.wg.Wait() }
