// Package daemontest starts a real daemon inside a test: the shared
// harness of the daemon, end-to-end, viewer, tray and CLI tests.
package daemontest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tend-agent/tend/daemon"
)

// ReadyLimit is how long a daemon may take to start or to stop.
const ReadyLimit = 20 * time.Second

// Start runs a daemon with cfg until the test ends, and returns it once
// it is ready. stop ends it earlier (to test a restart); it is safe to
// call more than once. A daemon that fails to start, or to stop, fails
// the test.
func Start(t testing.TB, cfg daemon.Config) (d *daemon.Daemon, stop func()) {
	t.Helper()
	d = daemon.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx, func() { close(ready) }) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("daemon ended with: %v", err)
				}
			case <-time.After(ReadyLimit):
				t.Errorf("the daemon did not stop within %s of its context ending", ReadyLimit)
			}
		})
	}
	t.Cleanup(stop)
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("daemon did not start: %v", err)
	case <-time.After(ReadyLimit):
		t.Fatalf("daemon did not become ready within %s", ReadyLimit)
	}
	return d, stop
}
