package e2e

import (
	"context"
	"sync"
	"time"

	"github.com/tend-agent/tend/watchers"
)

// timedRunner notes when passes end and when Finish starts and ends.
type timedRunner struct {
	watchers.Runner
	mu                               sync.Mutex
	passEnd, finishStart, finishEnd time.Time
}

func (t *timedRunner) Pass(ctx context.Context, req watchers.PassRequest) watchers.PassResult {
	res := t.Runner.Pass(ctx, req)
	t.mu.Lock()
	t.passEnd = time.Now()
	t.mu.Unlock()
	return res
}

func (t *timedRunner) Finish(ctx context.Context, sum watchers.RunSummary) {
	s := time.Now()
	t.Runner.Finish(ctx, sum)
	t.mu.Lock()
	t.finishStart, t.finishEnd = s, time.Now()
	t.mu.Unlock()
}

func (t *timedRunner) times() (time.Time, time.Time, time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.passEnd, t.finishStart, t.finishEnd
}
