package watchers_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tend-agent/tend/fingerprint"
	"github.com/tend-agent/tend/internal/clock"
	"github.com/tend-agent/tend/internal/testutil"
	"github.com/tend-agent/tend/watchers"
	"github.com/tend-agent/tend/watchers/events"
)

// tap wraps the real kernel source: it remembers every path it saw, can
// drop notices (to stand in for events lost in an overflow) and can inject
// notices of its own.
type tap struct {
	real events.Source
	out  chan events.Notice
	stop chan struct{}
	done chan struct{}
	once sync.Once

	mu       sync.Mutex
	seen     map[string]bool
	suppress bool
	dropped  int
}

func newTap(real events.Source) *tap {
	t := &tap{real: real, out: make(chan events.Notice), stop: make(chan struct{}), done: make(chan struct{}), seen: map[string]bool{}}
	go t.forward()
	return t
}

func (t *tap) forward() {
	defer close(t.done)
	defer close(t.out)
	for {
		select {
		case <-t.stop:
			return
		case n, ok := <-t.real.Notices():
			if !ok {
				return
			}
			t.mu.Lock()
			for _, p := range n.Paths {
				t.seen[p] = true
			}
			drop := t.suppress
			if drop {
				t.dropped++
			}
			t.mu.Unlock()
			if drop {
				continue
			}
			select {
			case t.out <- n:
			case <-t.stop:
				return
			}
		}
	}
}

func (t *tap) inject(n events.Notice) {
	select {
	case t.out <- n:
	case <-t.stop:
	}
}

func (t *tap) saw(p string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seen[p]
}

func (t *tap) setSuppress(on bool) {
	t.mu.Lock()
	t.suppress = on
	t.mu.Unlock()
}

func (t *tap) Notices() <-chan events.Notice { return t.out }
func (t *tap) Mode() string                  { return t.real.Mode() }
func (t *tap) Reason() string                { return t.real.Reason() }
func (t *tap) LastEventID() uint64           { return t.real.LastEventID() }
func (t *tap) Close() error {
	t.once.Do(func() {
		close(t.stop)
		t.real.Close()
		<-t.done
	})
	return nil
}

// harness runs one engine on a real folder with the real kernel source and
// a fake clock that the test moves.
type harness struct {
	t    *testing.T
	root string
	clk  *clock.Fake
	run  *testutil.Runner
	eng  *watchers.Engine

	stop func() // ends the engine and waits for it (safe to call twice)

	mu       sync.Mutex
	src      *tap
	nsrc     int                                           // event sources opened so far
	passHook func(watchers.PassRequest) watchers.Explainer // runs after each pass is recorded
	st       watchers.State
	phases   []watchers.Phase
	nbar     int
}

func testDef(root string) *watchers.Definition {
	return &watchers.Definition{
		ID: "0b7c6a52-1f0e-4c1e-9a37-7f3f2d6a9e01", Name: "w", Instructions: "keep it tidy",
		Enabled: true, Path: root, Recursive: true, Responsiveness: "fast",
		SettleSeconds: 0, MaxIterations: 5, Provider: watchers.Provider{Kind: "ollama"},
	}
}

// startEngine starts an engine on root (after setup filled it) and waits
// for its baseline.
func startEngine(t *testing.T, root string, edit func(*watchers.Definition)) *harness {
	t.Helper()
	return startEngineIn(t, root, t.TempDir(), edit)
}

// startEngineIn starts an engine that keeps its state (baseline included)
// in stateDir, so a second engine on the same stateDir stands for the
// daemon started again.
func startEngineIn(t *testing.T, root, stateDir string, edit func(*watchers.Definition)) *harness {
	t.Helper()
	def := testDef(root)
	if edit != nil {
		edit(def)
	}
	h := &harness{t: t, root: root, clk: clock.NewFake(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)), run: &testutil.Runner{}}
	// The include/exclude filters and other triggers, as the daemon
	// builds them (nil for a plain folder watcher).
	trig, err := watchers.BuildTriggers(def, watchers.TriggerDeps{Clock: h.clk, Loc: time.UTC})
	if err != nil {
		t.Fatalf("watcher definition: %v", err)
	}
	runs := 0
	h.eng = watchers.NewEngine(watchers.EngineConfig{
		Def:      def,
		StateDir: stateDir,
		Clock:    h.clk,
		Runner:   hookedRunner{h},
		Triggers: trig,
		NewSource: func(ctx context.Context, o events.Options) (events.Source, error) {
			real, err := events.New(ctx, o)
			if err != nil {
				return nil, err
			}
			tp := newTap(real)
			h.mu.Lock()
			h.src = tp
			h.nsrc++
			h.mu.Unlock()
			return tp, nil
		},
		Publish: func(st watchers.State) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.st = st
			h.phases = append(h.phases, st.Phase)
		},
		NewRunID: func() string { runs++; return fmt.Sprintf("run-%d", runs) },
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); h.eng.Run(ctx) }()
	h.stop = sync.OnceFunc(func() { cancel(); <-done })
	t.Cleanup(h.stop)
	h.waitPhase(watchers.PhaseIdle)
	return h
}

func (h *harness) phase() watchers.Phase {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.st.Phase
}

func (h *harness) state() watchers.State {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.st
}

func (h *harness) tap() *tap {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.src
}

// hookedRunner records passes in h.run, then lets the test's pass hook
// act as the model (or as someone else changing the folder meanwhile).
type hookedRunner struct{ h *harness }

func (r hookedRunner) Pass(ctx context.Context, req watchers.PassRequest) watchers.PassResult {
	res := r.h.run.Pass(ctx, req)
	r.h.mu.Lock()
	hook := r.h.passHook
	r.h.mu.Unlock()
	if hook != nil {
		if ex := hook(req); ex != nil {
			res.Explainer = ex
		}
	}
	return res
}

func (r hookedRunner) Finish(ctx context.Context, sum watchers.RunSummary) { r.h.run.Finish(ctx, sum) }

func (h *harness) setPassHook(f func(watchers.PassRequest) watchers.Explainer) {
	h.mu.Lock()
	h.passHook = f
	h.mu.Unlock()
}

func (h *harness) sources() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.nsrc
}

func (h *harness) waitPhase(p watchers.Phase) {
	h.t.Helper()
	testutil.WaitFor(h.t, "phase "+string(p), func() bool { return h.phase() == p },
		func() string { return fmt.Sprintf("(phase %s: %s)", h.phase(), h.state().Reason) })
}

// waitSeen waits until the source has reported every relative path.
func (h *harness) waitSeen(rels ...string) {
	h.t.Helper()
	testutil.WaitFor(h.t, fmt.Sprintf("the source to report %d paths", len(rels)), func() bool {
		for _, r := range rels {
			if !h.tap().saw(filepath.Join(h.root, filepath.FromSlash(r))) {
				return false
			}
		}
		return true
	}, func() string {
		var missing []string
		for _, r := range rels {
			if !h.tap().saw(filepath.Join(h.root, filepath.FromSlash(r))) {
				missing = append(missing, r)
			}
		}
		if len(missing) > 5 {
			missing = append(missing[:5], "…")
		}
		return "missing " + strings.Join(missing, ", ")
	})
}

// fire moves the fake clock until the engine has dispatched one more run
// and is idle again, and returns that run's first pass.
func (h *harness) fire() watchers.PassRequest {
	h.t.Helper()
	want := len(h.run.Passes("")) + 1
	testutil.WaitFor(h.t, "a dispatch", func() bool {
		if len(h.run.Passes("")) >= want && h.run.Finished("") >= want && h.phase() == watchers.PhaseIdle {
			return true
		}
		h.clk.Advance(time.Second)
		return false
	}, func() string { return fmt.Sprintf("(phase %s) %s", h.phase(), h.run.Describe()) })
	ps := h.run.Passes("")
	if len(ps) != want {
		h.t.Fatalf("expected one more pass, got %d in all: %s", len(ps), h.run.Describe())
	}
	return ps[want-1]
}

// quiet proves that nothing is left over: a fresh file, once the source has
// reported it, must be dispatched alone. Every event of earlier changes
// came before it from the same kernel queue.
func (h *harness) quiet() {
	h.t.Helper()
	h.nbar++
	rel := fmt.Sprintf("zz-barrier-%d.txt", h.nbar)
	testutil.Write(h.t, h.root, rel, "barrier")
	h.waitSeen(rel)
	p := h.fire()
	if want := (fingerprint.Changes{Added: []string{rel}}); !testutil.Equal(p.Changes, want) {
		h.t.Fatalf("left-over changes: the barrier run had %+v, want only %s (all passes: %s)", p.Changes, rel, h.run.Describe())
	}
}

// changedPaths lists every path of a change set, sorted.
func changedPaths(ch fingerprint.Changes) []string {
	out := append(append(append([]string{}, ch.Added...), ch.Removed...), ch.Modified...)
	sort.Strings(out)
	return out
}
