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

	"github.com/tend-agent/tend/watchers"
)

// Issue 8, finding 5: log verdicts that arrive while a run is going (or
// during the cooldown) are queued, coalesced and run afterwards; a fail
// verdict outranks an ok one.
func TestTailVerdictsDuringRunAreQueued(t *testing.T) {
	e := i5Start(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "app.log")
	writeFile(t, log, "starting\n")
	started := make(chan struct{})
	release := make(chan struct{})
	e.runner.act = func(ctx context.Context, req watchers.PassRequest) watchers.PassResult {
		if req.Trigger == "change" {
			close(started)
			<-release
		}
		return watchers.PassResult{Outcome: "done"}
	}
	e.add(watchers.Definition{Name: "app", Path: dir, Tail: &watchers.Tail{File: "app.log", OKPattern: `^OK`, FailPattern: `^FAIL`}})
	e.until("the watcher to watch", time.Millisecond, func() bool { return e.state("app").Phase == watchers.PhaseIdle })
	writeFile(t, filepath.Join(dir, "new.txt"), "x")
	e.until("a change run", 100*time.Millisecond, func() bool {
		select {
		case <-started:
			return true
		default:
			return false
		}
	})
	appendLine := func(s string) {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(f, s)
		f.Close()
	}
	appendLine("OK all good")
	e.until("the ok verdict queued", 200*time.Millisecond, func() bool { return len(e.state("app").Queued) == 1 })
	appendLine("FAIL: disk full")
	appendLine("OK again")
	// Let the tail poll see the fail line too.
	for i := 0; i < 5; i++ {
		e.clock.Advance(time.Second)
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	e.until("the queued tail run", 500*time.Millisecond, func() bool { _, ends, _ := e.runner.snapshot(); return len(ends) >= 2 })
	for i := 0; i < 30; i++ { // no further verdict runs
		e.clock.Advance(time.Second)
		time.Sleep(time.Millisecond)
	}
	passes, _, _ := e.runner.snapshot()
	var tails []watchers.PassRequest
	for _, p := range passes {
		if p.Trigger == "tail" {
			tails = append(tails, p)
		}
	}
	if len(tails) != 1 || !strings.Contains(tails[0].Extra, "FAIL: disk full") || !strings.Contains(tails[0].Extra, "FAIL") {
		t.Fatalf("want one tail run carrying the fail verdict, got %d: %+v", len(tails), tails)
	}
	if q := e.state("app").Queued; len(q) != 0 {
		t.Fatalf("still queued after the run: %v", q)
	}
}

// Issue 8: a check that fails three times in a row puts the watcher in
// error, like failed runs, and says so.
func TestCheckFailingThriceIsAnError(t *testing.T) {
	e := i5Start(t)
	e.add(watchers.Definition{Name: "bad", Path: t.TempDir(), Schedule: "every 1m", Check: "echo oops >&2; exit 3"})
	e.until("the watcher in error", time.Minute, func() bool { return e.state("bad").Phase == watchers.PhaseError })
	st := e.state("bad")
	if !strings.Contains(st.Reason, "failed 3 times") || !strings.Contains(st.Reason, "tend resume bad") {
		t.Fatalf("reason %q does not say the check failed 3 times and how to resume", st.Reason)
	}
	_, _, checks := e.runner.snapshot()
	if len(checks) != 3 {
		t.Fatalf("%d checks ran, want 3 before the error", len(checks))
	}
}

// Issue 8: a panic in one watcher puts that watcher in error with the
// panic's message; the daemon and the other watchers go on. A panic inside
// a pass fails that run instead.
func TestPanicInOneWatcherLeavesTheOthers(t *testing.T) {
	e := i5Start(t)
	boomDir, calmDir := t.TempDir(), t.TempDir()
	e.runner.act = func(ctx context.Context, req watchers.PassRequest) watchers.PassResult {
		if req.Def.Name == "passpanic" {
			panic("pass exploded")
		}
		return watchers.PassResult{Outcome: "done"}
	}
	e.runner.after = func(sum watchers.RunSummary) {
		if sum.Def.Name == "boom" { // Finish runs on the engine goroutine
			panic("engine exploded")
		}
	}
	e.add(watchers.Definition{Name: "boom", Path: boomDir})
	e.add(watchers.Definition{Name: "calm", Path: calmDir})
	ppDir := t.TempDir()
	e.add(watchers.Definition{Name: "passpanic", Path: ppDir})
	e.until("watching", time.Millisecond, func() bool {
		return e.state("boom").Phase == watchers.PhaseIdle && e.state("calm").Phase == watchers.PhaseIdle && e.state("passpanic").Phase == watchers.PhaseIdle
	})
	writeFile(t, filepath.Join(boomDir, "x"), "x")
	writeFile(t, filepath.Join(ppDir, "x"), "x")
	e.until("boom in error", 100*time.Millisecond, func() bool { return e.state("boom").Phase == watchers.PhaseError })
	if r := e.state("boom").Reason; !strings.Contains(r, "engine exploded") {
		t.Fatalf("reason %q does not carry the panic", r)
	}
	e.until("the pass panic recorded as a failed run", 100*time.Millisecond, func() bool {
		_, ends, _ := e.runner.snapshot()
		for _, s := range ends {
			if s.Def.Name == "passpanic" && s.Outcome == "failed" && strings.Contains(s.Reason, "pass exploded") {
				return true
			}
		}
		return false
	})
	writeFile(t, filepath.Join(calmDir, "y"), "y")
	e.until("calm still runs", 100*time.Millisecond, func() bool {
		_, ends, _ := e.runner.snapshot()
		for _, s := range ends {
			if s.Def.Name == "calm" {
				return true
			}
		}
		return false
	})
}

// Issue 9, finding 11: a watched folder replaced by a symbolic link is not
// followed: the watcher is in error and says why.
func TestWatchedRootReplacedBySymlinkIsAnError(t *testing.T) {
	e := i5Start(t)
	parent := t.TempDir()
	dir := filepath.Join(parent, "inbox")
	elsewhere := t.TempDir()
	writeFile(t, filepath.Join(elsewhere, "secret.txt"), "outside")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	e.add(watchers.Definition{Name: "root", Path: dir})
	e.until("watching", time.Millisecond, func() bool { return e.state("root").Phase == watchers.PhaseIdle })
	if err := os.Rename(dir, filepath.Join(parent, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, dir); err != nil {
		t.Fatal(err)
	}
	e.until("the watcher in error about the link", time.Second, func() bool {
		st := e.state("root")
		return st.Phase == watchers.PhaseError && strings.Contains(st.Reason, "symbolic link")
	})
	passes, _, _ := e.runner.snapshot()
	if len(passes) != 0 {
		t.Fatalf("a run went through the link: %+v", passes)
	}
}

// Issue 8: a failed run is retried by itself with backoff (10 s, then
// 20 s), keeping its changes, until the model answers again.
func TestFailedRunIsRetriedWithBackoff(t *testing.T) {
	e := i5Start(t)
	dir := t.TempDir()
	var fails atomic.Int32
	fails.Store(2)
	e.runner.act = func(ctx context.Context, req watchers.PassRequest) watchers.PassResult {
		if fails.Add(-1) >= 0 {
			return watchers.PassResult{Outcome: "failed", Reason: "model server down", Failed: true}
		}
		return watchers.PassResult{Outcome: "done"}
	}
	e.add(watchers.Definition{Name: "retry", Path: dir})
	e.until("watching", time.Millisecond, func() bool { return e.state("retry").Phase == watchers.PhaseIdle })
	writeFile(t, filepath.Join(dir, "a.txt"), "a")
	e.until("a good run", 500*time.Millisecond, func() bool {
		_, ends, _ := e.runner.snapshot()
		return len(ends) == 3 && ends[2].Outcome == "done"
	})
	passes, ends, _ := e.runner.snapshot()
	for i, p := range passes {
		if p.Changes.Len() != 1 || p.Changes.Added[0] != "a.txt" {
			t.Fatalf("pass %d was not given a.txt: %+v", i+1, p.Changes)
		}
	}
	gap1, gap2 := ends[1].Started.Sub(ends[0].Ended), ends[2].Started.Sub(ends[1].Ended)
	if gap1 < 10*time.Second || gap2 < 20*time.Second || gap2 > time.Minute {
		t.Fatalf("retries came %s and %s after the failures, want about 10 s and 20 s", gap1, gap2)
	}
	// (The run's end is recorded a moment before the state is.)
	e.until("nothing pending after the good run", time.Millisecond, func() bool {
		st := e.state("retry")
		return st.PendingCount == 0 && st.Phase == watchers.PhaseIdle
	})
}
