package daemon_test

import (
	"context"
	"fmt"
	"github.com/tend-agent/tend/daemon/daemontest"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/internal/testutil"
	"github.com/tend-agent/tend/watchers"
)

// dh is a daemon running in the test process on a fresh home, with the
// recording runner and the real kernel watcher.
type dh struct {
	t    *testing.T
	home home.Home
	run  *testutil.Runner
	c    *api.Client
	ctx  context.Context

	mu     sync.Mutex
	events []api.Event
}

func startDaemon(t *testing.T) *dh {
	t.Helper()
	h := &dh{t: t, home: home.Home{Dir: testutil.ShortTempDir(t)}, run: &testutil.Runner{}}
	daemontest.Start(t, daemon.Config{
		Home:   h.home,
		Runner: h.run,
		Log:    slog.New(slog.DiscardHandler),
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	h.ctx = ctx
	h.c = api.NewClient(h.home.Socket())
	go h.c.Events(ctx, func(ev api.Event) {
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.mu.Unlock()
	})
	return h
}

// add creates a fast watcher on path.
func (h *dh) add(name, path string, edit func(*watchers.Definition)) api.View {
	h.t.Helper()
	def := watchers.Definition{
		Name: name, Instructions: "keep it tidy", Enabled: true, Path: path,
		Recursive: true, Responsiveness: "fast", Guards: watchers.Guards{CooldownSeconds: 5},
	}
	if edit != nil {
		edit(&def)
	}
	v, err := h.c.Add(h.ctx, api.AddRequest{Definition: def})
	if err != nil {
		h.t.Fatalf("adding %s: %v", name, err)
	}
	return v
}

func (h *dh) view(name string) (api.View, bool) {
	vs, err := h.c.List(h.ctx)
	if err != nil {
		h.t.Fatalf("listing watchers: %v", err)
	}
	for _, v := range vs {
		if v.Definition.Name == name {
			return v, true
		}
	}
	return api.View{}, false
}

func (h *dh) waitState(name, what string, cond func(watchers.State) bool) watchers.State {
	h.t.Helper()
	var last watchers.State
	testutil.WaitFor(h.t, name+" to be "+what, func() bool {
		v, ok := h.view(name)
		last = v.State
		return ok && cond(v.State)
	}, func() string { return fmt.Sprintf("(last state %+v)", last) })
	return last
}

func (h *dh) waitPhase(name string, p watchers.Phase) watchers.State {
	h.t.Helper()
	return h.waitState(name, string(p), func(s watchers.State) bool { return s.Phase == p })
}

// waitRun waits for the n-th run of a watcher to finish and the watcher
// to be idle again, and returns that run's first pass.
func (h *dh) waitRun(name string, n int) watchers.PassRequest {
	h.t.Helper()
	testutil.WaitFor(h.t, fmt.Sprintf("run %d of %s", n, name), func() bool {
		return h.run.Finished(name) >= n
	}, h.run.Describe)
	h.waitPhase(name, watchers.PhaseIdle)
	var firsts []watchers.PassRequest
	for _, p := range h.run.Passes(name) {
		if p.Pass == 1 {
			firsts = append(firsts, p)
		}
	}
	if len(firsts) != n {
		h.t.Fatalf("%s: %d runs, want %d: %s", name, len(firsts), n, h.run.Describe())
	}
	return firsts[n-1]
}

// wakes counts how often a watcher went from another phase to debouncing.
func (h *dh) wakes(name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n, prev := 0, watchers.Phase("")
	for _, ev := range h.events {
		if ev.Name != name {
			continue
		}
		if ev.Status == watchers.PhaseDebouncing && prev != watchers.PhaseDebouncing {
			n++
		}
		prev = ev.Status
	}
	return n
}

func (h *dh) status() api.Status {
	h.t.Helper()
	s, err := h.c.Status(h.ctx)
	if err != nil {
		h.t.Fatalf("status: %v", err)
	}
	return s
}

func names(vs []api.View) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Definition.Name)
	}
	slices.Sort(out)
	return out
}
