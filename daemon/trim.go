package daemon

import (
	"runtime/debug"
	"sync"
	"time"

	"github.com/tend-agent/tend/watchers"
)

// trimDelay lets the baseline writes that follow a build finish before the
// heap is trimmed.
const trimDelay = 2 * time.Second

// memTrimmer hands the memory of a full fingerprint build back to the
// operating system once the watcher is idle. A build of a large folder
// makes garbage several times the size of the tree it leaves; the Go
// runtime would keep those pages resident for minutes. Trimming costs one
// forced collection, and happens only after a watcher leaves the starting
// phase, not on every change.
type memTrimmer struct {
	mu    sync.Mutex
	last  map[string]watchers.Phase
	timer *time.Timer
}

func newMemTrimmer() *memTrimmer { return &memTrimmer{last: map[string]watchers.Phase{}} }

func (m *memTrimmer) observe(id string, p watchers.Phase) {
	m.mu.Lock()
	defer m.mu.Unlock()
	prev := m.last[id]
	m.last[id] = p
	if prev != watchers.PhaseStarting || p == watchers.PhaseStarting {
		return
	}
	if m.timer != nil {
		m.timer.Stop()
	}
	m.timer = time.AfterFunc(trimDelay, debug.FreeOSMemory)
}

func (m *memTrimmer) stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.timer != nil {
		m.timer.Stop()
	}
}
