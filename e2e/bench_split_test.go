package e2e

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/watchers"
)

// The benchmark's split of the time back to idle (TEND_BENCH_SPLIT=1):
// when the provider's Chat returns, when the pass ends, and when Finish
// (the run-end record) starts and ends.

// timedRunner notes when passes end and when Finish starts and ends.
type timedRunner struct {
	watchers.Runner
	mu                              sync.Mutex
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

// chatReturned is when the last Chat call returned (unix ns).
var chatReturned atomic.Int64

type timedProvider struct{ dispatch.Provider }

func (p timedProvider) Chat(ctx context.Context, msgs []dispatch.Message, tools []dispatch.ToolSpec) (dispatch.Reply, error) {
	r, err := p.Provider.Chat(ctx, msgs, tools)
	chatReturned.Store(time.Now().UnixNano())
	return r, err
}

func timedNewProvider(ctx context.Context, cfg dispatch.ProviderConfig, k dispatch.KeyStore, l *slog.Logger) (dispatch.Provider, error) {
	p, err := dispatch.NewProvider(ctx, cfg, k, l)
	if err != nil {
		return nil, err
	}
	return timedProvider{p}, nil
}
