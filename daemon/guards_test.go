package daemon_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/watchers"
)

func TestCooldownHoldsTheNextRun(t *testing.T) {
	e := i5Start(t)
	dir := t.TempDir()
	e.add(watchers.Definition{Name: "cool", Path: dir, Guards: watchers.Guards{CooldownSeconds: 30}})
	e.until("watching", time.Millisecond, func() bool { return e.state("cool").Phase == watchers.PhaseIdle })
	writeFile(t, filepath.Join(dir, "a"), "1")
	e.until("the first run", 100*time.Millisecond, func() bool { _, ends, _ := e.runner.snapshot(); return len(ends) == 1 })
	_, ends, _ := e.runner.snapshot()
	firstEnd := ends[0].Ended
	writeFile(t, filepath.Join(dir, "b"), "2")
	e.until("the second run", time.Second, func() bool { _, ends, _ := e.runner.snapshot(); return len(ends) == 2 })
	_, ends, _ = e.runner.snapshot()
	if started := ends[1].Started; started.Sub(firstEnd) < 30*time.Second {
		t.Fatalf("second run started %s after the first ended; the cooldown is 30s", started.Sub(firstEnd))
	}
}

func TestBurstOfSelfCausedChangesPauses(t *testing.T) {
	e := i5Start(t)
	dir := t.TempDir()
	var n atomic.Int32
	// Every run leaves a change behind once it has finished, so the
	// watcher would wake itself forever.
	e.runner.after = func(sum watchers.RunSummary) {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("echo-%d", n.Add(1))), "x")
	}
	e.add(watchers.Definition{Name: "loop", Path: dir, Guards: watchers.Guards{CooldownSeconds: 5, BurstThreshold: 3, BurstWindowSeconds: 60}})
	e.until("watching", time.Millisecond, func() bool { return e.state("loop").Phase == watchers.PhaseIdle })
	writeFile(t, filepath.Join(dir, "start"), "go")
	e.until("the burst guard", 500*time.Millisecond, func() bool { return e.state("loop").Phase == watchers.PhasePaused })
	st := e.state("loop")
	if !strings.Contains(st.Reason, "burst") {
		t.Fatalf("reason %q should name the burst guard", st.Reason)
	}
	if _, ends, _ := e.runner.snapshot(); len(ends) != 3 {
		t.Fatalf("want 3 runs before the pause (threshold 3), got %d", len(ends))
	}
}

func TestMaxFiresExhaustsUntilReset(t *testing.T) {
	e := i5Start(t)
	dir := t.TempDir()
	e.add(watchers.Definition{Name: "twice", Path: dir, Guards: watchers.Guards{CooldownSeconds: 5, MaxFires: 2}})
	e.until("watching", time.Millisecond, func() bool { return e.state("twice").Phase == watchers.PhaseIdle })
	for i := 0; i < 3; i++ {
		writeFile(t, filepath.Join(dir, fmt.Sprint(i)), "x")
		want := i + 1
		e.until("a run or exhaustion", time.Second, func() bool {
			_, ends, _ := e.runner.snapshot()
			return len(ends) == want || e.state("twice").Phase == watchers.PhaseExhausted
		})
	}
	if st := e.state("twice"); st.Phase != watchers.PhaseExhausted || st.FireCount != 2 {
		t.Fatalf("state %s, fires %d; want exhausted after 2", st.Phase, st.FireCount)
	}
	if err := e.c.Resume(context.Background(), "twice", api.ResumeRequest{Reset: true}); err != nil {
		t.Fatal(err)
	}
	e.until("a run after reset", time.Second, func() bool { _, ends, _ := e.runner.snapshot(); return len(ends) == 3 })
}

func TestConsecutiveFailuresPauseWithTheError(t *testing.T) {
	e := i5Start(t)
	dir := t.TempDir()
	e.runner.act = func(ctx context.Context, req watchers.PassRequest) watchers.PassResult {
		return watchers.PassResult{Outcome: "failed", Failed: true, Reason: "cannot reach the Ollama server"}
	}
	e.add(watchers.Definition{Name: "flaky", Path: dir, Guards: watchers.Guards{CooldownSeconds: 5, BurstThreshold: 50}})
	e.until("watching", time.Millisecond, func() bool { return e.state("flaky").Phase == watchers.PhaseIdle })
	for i := 0; i < 3; i++ {
		writeFile(t, filepath.Join(dir, fmt.Sprint(i)), "x")
		want := i + 1
		e.until("a failed run", time.Second, func() bool { _, ends, _ := e.runner.snapshot(); return len(ends) >= want })
	}
	e.until("the failure guard", time.Second, func() bool { return e.state("flaky").Phase == watchers.PhaseError })
	writeFile(t, filepath.Join(dir, "after"), "x")
	for i := 0; i < 30; i++ {
		e.clock.Advance(time.Second)
	}
	st := e.state("flaky")
	if _, ends, _ := e.runner.snapshot(); len(ends) != 3 || !strings.Contains(st.Reason, "cannot reach the Ollama server") {
		t.Fatalf("runs %d, reason %q", len(ends), st.Reason)
	}
}

func TestPanicPausesAllAndCancelsRuns(t *testing.T) {
	e := i5Start(t)
	started := make(chan string, 2)
	e.runner.act = func(ctx context.Context, req watchers.PassRequest) watchers.PassResult {
		started <- req.Def.Name
		<-ctx.Done() // a model that never answers
		return watchers.PassResult{Outcome: "stopped", Reason: "cancelled"}
	}
	a, b := t.TempDir(), t.TempDir()
	e.add(watchers.Definition{Name: "a", Path: a})
	e.add(watchers.Definition{Name: "b", Path: b})
	e.until("watching", time.Millisecond, func() bool {
		return e.state("a").Phase == watchers.PhaseIdle && e.state("b").Phase == watchers.PhaseIdle
	})
	ctx := context.Background()
	if _, err := e.c.Run(ctx, "a", false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Run(ctx, "b", false); err != nil {
		t.Fatal(err)
	}
	<-started
	<-started
	if _, err := e.c.Run(ctx, "a", false); err == nil {
		t.Fatal("a second run of the same watcher must not start while one is going")
	}
	if err := e.c.Panic(ctx); err != nil {
		t.Fatal(err)
	}
	e.until("both runs stopped", 100*time.Millisecond, func() bool { _, ends, _ := e.runner.snapshot(); return len(ends) == 2 })
	_, ends, _ := e.runner.snapshot()
	for _, s := range ends {
		if s.Outcome != "stopped" {
			t.Fatalf("run of %s ended %q, want stopped", s.Def.Name, s.Outcome)
		}
	}
	for _, n := range []string{"a", "b"} {
		v, _ := e.c.Get(ctx, n)
		if v.State.Phase != watchers.PhasePaused || v.Definition.Enabled {
			t.Fatalf("%s: phase %s enabled %v", n, v.State.Phase, v.Definition.Enabled)
		}
	}
	os.WriteFile(filepath.Join(a, "late"), nil, 0o644)
	for i := 0; i < 50; i++ {
		e.clock.Advance(time.Second)
	}
	if p, _, _ := e.runner.snapshot(); len(p) != 2 {
		t.Fatalf("a paused watcher ran: %d passes", len(p))
	}
}
