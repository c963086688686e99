package watchers

import (
	"log/slog"
	"sync"
)

// bgWriter persists a watcher's runtime files off the engine goroutine.
// Writing them durably (temp file, fsync, rename, fsync of the folder)
// takes milliseconds, and the baseline of a 150,000-entry folder several
// more; the watcher should not spend that between the model's answer and
// being idle again. Only the newest pending write is kept (each write
// replaces the whole file with a snapshot), and wait flushes before the
// engine stops, so the files on disk always end up as the engine left
// them.
type bgWriter struct {
	what string
	log  *slog.Logger

	mu      sync.Mutex
	next    func() error
	running bool
	wg      sync.WaitGroup
}

// put schedules write, replacing any write not yet started. write must
// only use data that nobody changes afterwards.
func (w *bgWriter) put(write func() error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next = write
	if w.running {
		return
	}
	w.running = true
	w.wg.Add(1)
	go w.run()
}

func (w *bgWriter) run() {
	defer w.wg.Done()
	for {
		w.mu.Lock()
		write := w.next
		w.next = nil
		if write == nil {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		if err := write(); err != nil {
			w.log.Error("saving "+w.what, "err", err)
		}
	}
}

// wait returns once every scheduled write is done.
func (w *bgWriter) wait() { w.wg.Wait() }
