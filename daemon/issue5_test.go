package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/tend-agent/tend/daemon/daemontest"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/internal/clock"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/watchers"
	"github.com/tend-agent/tend/watchers/check"
)

// i5Runner records passes. act, when set, runs inside each pass; after,
// when set, runs when a run finishes (a change that lands after the run,
// as a sync client or a build would make).
type i5Runner struct {
	mu     sync.Mutex
	passes []watchers.PassRequest
	ends   []watchers.RunSummary
	checks []check.Result
	act    func(ctx context.Context, req watchers.PassRequest) watchers.PassResult
	after  func(sum watchers.RunSummary)
}

func (r *i5Runner) Pass(ctx context.Context, req watchers.PassRequest) watchers.PassResult {
	r.mu.Lock()
	r.passes = append(r.passes, req)
	act := r.act
	r.mu.Unlock()
	if act != nil {
		return act(ctx, req)
	}
	return watchers.PassResult{Outcome: "done"}
}

func (r *i5Runner) Finish(ctx context.Context, sum watchers.RunSummary) {
	r.mu.Lock()
	r.ends = append(r.ends, sum)
	after := r.after
	r.mu.Unlock()
	if after != nil {
		after(sum)
	}
}

func (r *i5Runner) RecordCheck(def *watchers.Definition, res check.Result) {
	r.mu.Lock()
	r.checks = append(r.checks, res)
	r.mu.Unlock()
}

func (r *i5Runner) Undo(ctx context.Context, def *watchers.Definition, runID string) (api.UndoResponse, error) {
	return api.UndoResponse{}, fmt.Errorf("no undo in this test")
}

func (r *i5Runner) History(def *watchers.Definition) (json.RawMessage, error) {
	return json.RawMessage("[]"), nil
}

func (r *i5Runner) snapshot() ([]watchers.PassRequest, []watchers.RunSummary, []check.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]watchers.PassRequest(nil), r.passes...), append([]watchers.RunSummary(nil), r.ends...), append([]check.Result(nil), r.checks...)
}

type i5Env struct {
	t      *testing.T
	home   home.Home
	clock  *clock.Fake
	runner *i5Runner
	c      *api.Client
}

// i5Start runs a daemon on a fresh home with a fake clock. The kernel
// watcher is real; every timer (debounce, settle, cooldown, schedule) is
// on the fake clock.
func i5Start(t *testing.T) *i5Env {
	t.Helper()
	h := home.Home{Dir: t.TempDir()}
	fc := clock.NewFake(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	r := &i5Runner{}
	daemontest.Start(t, daemon.Config{
		Home: h, Clock: fc, Runner: r, Log: i5Log(),
		Triggers: func(def *watchers.Definition) (*watchers.Triggers, error) {
			return watchers.BuildTriggers(def, watchers.TriggerDeps{Clock: fc, Loc: time.UTC, StateDir: h.State(), ScriptDir: h.Watchers()})
		},
	})
	return &i5Env{t: t, home: h, clock: fc, runner: r, c: api.NewClient(h.Socket())}
}

func (e *i5Env) add(def watchers.Definition) watchers.Definition {
	e.t.Helper()
	if def.Instructions == "" {
		def.Instructions = "keep it tidy"
	}
	def.Enabled = def.Path != ""
	def.Recursive = true
	if def.Responsiveness == "" {
		def.Responsiveness = "fast"
	}
	v, err := e.c.Add(context.Background(), api.AddRequest{Definition: def})
	if err != nil {
		e.t.Fatalf("add %s: %v", def.Name, err)
	}
	return v.Definition
}

// until advances the fake clock in small steps whenever a timer waits,
// until cond holds or ten seconds of real time pass.
func (e *i5Env) until(what string, step time.Duration, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			views, _ := e.c.List(context.Background())
			for _, v := range views {
				e.t.Logf("%s: phase %s reason %q fires %d failures %d", v.Definition.Name, v.State.Phase, v.State.Reason, v.State.FireCount, v.State.Failures)
			}
			passes, ends, _ := e.runner.snapshot()
			e.t.Fatalf("timed out waiting for %s (passes %d, runs ended %d, timers pending %d)", what, len(passes), len(ends), e.clock.Pending())
		}
		if e.clock.Pending() > 0 {
			e.clock.Advance(step)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (e *i5Env) state(name string) watchers.State {
	v, err := e.c.Get(context.Background(), name)
	if err != nil {
		e.t.Fatal(err)
	}
	return v.State
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestScriptCheckQuietTwiceThenOutputRunsModelOnce(t *testing.T) {
	e := i5Start(t)
	dir := t.TempDir()
	// Prints nothing on its first two runs, then one line.
	script := `n=$(cat "$TEND_WATCHER_STATE_DIR/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$TEND_WATCHER_STATE_DIR/n"; [ $n -ge 3 ] && echo "disk 97% full"; true`
	e.add(watchers.Definition{Name: "disk", Path: dir, Schedule: "every 1m", Check: script})
	e.until("three checks", time.Minute, func() bool {
		_, _, checks := e.runner.snapshot()
		return len(checks) >= 3
	})
	e.until("the run to end", 100*time.Millisecond, func() bool {
		_, ends, _ := e.runner.snapshot()
		return len(ends) == 1
	})
	passes, _, checks := e.runner.snapshot()
	for i, want := range []check.Outcome{check.Quiet, check.Quiet, check.Output} {
		if checks[i].Outcome != want {
			t.Fatalf("check %d: %s (%v), want %s", i+1, checks[i].Outcome, checks[i].Err, want)
		}
	}
	if len(passes) != 1 || passes[0].Trigger != "check" || !strings.Contains(passes[0].Extra, "disk 97% full") {
		t.Fatalf("want exactly one model run with the check output, got %+v", passes)
	}
	if st := e.state("disk"); st.NextDue.IsZero() {
		t.Fatal("show must have a next due time")
	}
}

func TestFailedCheckIsRecordedNotSent(t *testing.T) {
	e := i5Start(t)
	e.add(watchers.Definition{Name: "bad", Path: t.TempDir(), Schedule: "every 1m", Check: "echo oops; exit 3"})
	e.until("a check", time.Minute, func() bool { _, _, c := e.runner.snapshot(); return len(c) >= 2 })
	passes, _, checks := e.runner.snapshot()
	if checks[0].Outcome != check.Failed || len(passes) != 0 {
		t.Fatalf("failed check: outcome %s, passes %d", checks[0].Outcome, len(passes))
	}
}

func TestLogTailFailPatternDispatchesOnce(t *testing.T) {
	e := i5Start(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "build.log")
	writeFile(t, log, "starting\n")
	e.add(watchers.Definition{Name: "build", Path: dir, Tail: &watchers.Tail{File: "build.log", OKPattern: `^PASS`, FailPattern: `^FAIL`}})
	e.until("the watcher to watch", time.Millisecond, func() bool { return e.state("build").Phase == watchers.PhaseIdle })
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, "compiling a.go")
	fmt.Fprintln(f, "FAIL: TestX (0.01s)")
	f.Close()
	e.until("a tail run", 500*time.Millisecond, func() bool { _, ends, _ := e.runner.snapshot(); return len(ends) >= 1 })
	// More time passes with no new lines: no second verdict.
	for i := 0; i < 20; i++ {
		e.clock.Advance(time.Second)
		time.Sleep(time.Millisecond)
	}
	passes, _, _ := e.runner.snapshot()
	if len(passes) != 1 || passes[0].Trigger != "tail" || !strings.Contains(passes[0].Extra, "FAIL: TestX") {
		t.Fatalf("want one tail run with the failing line, got %+v", passes)
	}
}

func TestScheduledRunWithNothingChangedSaysSo(t *testing.T) {
	e := i5Start(t)
	e.add(watchers.Definition{Name: "tidy", Path: t.TempDir(), Schedule: "every 10m"})
	e.until("a scheduled run", time.Minute, func() bool { _, ends, _ := e.runner.snapshot(); return len(ends) >= 1 })
	passes, _, _ := e.runner.snapshot()
	if passes[0].Trigger != "schedule" || !strings.Contains(passes[0].Note, "nothing changed") || passes[0].Changes.Len() != 0 {
		t.Fatalf("scheduled run: %+v", passes[0])
	}
}

func TestTemplateAttachedToTwoFolders(t *testing.T) {
	e := i5Start(t)
	tpl := e.add(watchers.Definition{Name: "photos", Instructions: "sort photos by year"})
	ctx := context.Background()
	a, b := t.TempDir(), t.TempDir()
	va, err := e.c.Attach(ctx, api.AttachRequest{Template: "photos", Path: a})
	if err != nil {
		t.Fatal(err)
	}
	vb, err := e.c.Attach(ctx, api.AttachRequest{Template: "photos", Path: b, Name: "photos-b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []api.View{va, vb} {
		if v.Definition.TemplateID != tpl.ID || !v.Definition.Enabled || v.Definition.Instructions != "sort photos by year" {
			t.Fatalf("instance %+v", v.Definition)
		}
	}
	e.until("both instances to watch", time.Millisecond, func() bool {
		return e.state(va.Definition.Name).Phase == watchers.PhaseIdle && e.state("photos-b").Phase == watchers.PhaseIdle
	})
	writeFile(t, filepath.Join(a, "x.jpg"), "x")
	writeFile(t, filepath.Join(b, "y.jpg"), "y")
	e.until("both instances to run", 100*time.Millisecond, func() bool { _, ends, _ := e.runner.snapshot(); return len(ends) >= 2 })
	d, err := e.c.Detach(ctx, "photos-b")
	if err != nil {
		t.Fatal(err)
	}
	if d.Definition.TemplateID != "" || d.Definition.Enabled {
		t.Fatalf("detached: %+v", d.Definition)
	}
	e.until("the copy to be paused with no fires", time.Second, func() bool {
		st := e.state("photos-b")
		return st.Phase == watchers.PhasePaused && st.FireCount == 0
	})
	if _, err := e.c.Attach(ctx, api.AttachRequest{Template: va.Definition.Name, Path: t.TempDir()}); err == nil {
		t.Fatal("attaching a non-template must fail")
	}
}

func i5Log() *slog.Logger {
	if os.Getenv("TEND_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func TestHandEditedBadScheduleErrorsOnlyThatWatcher(t *testing.T) {
	e := i5Start(t)
	good := e.add(watchers.Definition{Name: "good", Path: t.TempDir()})
	bad := e.add(watchers.Definition{Name: "bad", Path: t.TempDir()})
	p := filepath.Join(e.home.Watchers(), bad.ID+".json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(data, &m)
	m["schedule"] = "every blue moon"
	data, _ = json.MarshalIndent(m, "", "  ")
	// Written as an editor saves (a new file renamed over the old), so the
	// daemon never reads a half-written file and loses the watcher's name.
	if err := os.WriteFile(p+".tmp", data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".tmp", p); err != nil {
		t.Fatal(err)
	}
	e.until("the bad watcher to report its schedule", time.Millisecond, func() bool {
		st := e.state("bad")
		return st.Phase == watchers.PhaseError && strings.Contains(st.Reason, "schedule") && strings.Contains(st.Reason, "blue")
	})
	e.until("the other watcher watching", time.Millisecond, func() bool { return e.state("good").Phase == watchers.PhaseIdle })
	after, _ := os.ReadFile(p)
	if string(after) != string(data) {
		t.Fatal("tend rewrote a hand-edited file")
	}
	_ = good
}

func TestPathFilterChangeWithNoIncludedPathIsNoFire(t *testing.T) {
	e := i5Start(t)
	dir := t.TempDir()
	e.add(watchers.Definition{Name: "pdfs", Path: dir, Include: []string{"**/*.pdf"}, Exclude: []string{"drafts/**"}})
	e.until("watching", time.Millisecond, func() bool { return e.state("pdfs").Phase == watchers.PhaseIdle })
	writeFile(t, filepath.Join(dir, "notes.txt"), "x")
	writeFile(t, filepath.Join(dir, "drafts", "d.pdf"), "x")
	// Let the debounce window pass several times over.
	e.until("the change to be looked at", 100*time.Millisecond, func() bool {
		st := e.state("pdfs")
		return st.Phase == watchers.PhaseIdle && st.Files == 2
	})
	if passes, _, _ := e.runner.snapshot(); len(passes) != 0 || e.state("pdfs").FireCount != 0 {
		t.Fatalf("a change with no included path ran the model: %+v", passes)
	}
	writeFile(t, filepath.Join(dir, "in", "bill.pdf"), "x")
	writeFile(t, filepath.Join(dir, "more.txt"), "x")
	e.until("a run", 100*time.Millisecond, func() bool { _, ends, _ := e.runner.snapshot(); return len(ends) == 1 })
	passes, _, _ := e.runner.snapshot()
	if got := passes[0].Changes.Added; len(got) != 1 || got[0] != "in/bill.pdf" {
		t.Fatalf("the run lists %+v, want only in/bill.pdf", passes[0].Changes)
	}
	if st := e.state("pdfs"); st.FireCount != 1 {
		t.Fatalf("fires %d, want 1", st.FireCount)
	}
}

func TestDailyScheduleRunsAtItsWallClockTime(t *testing.T) {
	e := i5Start(t) // the fake clock starts on Monday 2026-03-02 09:00 UTC
	e.add(watchers.Definition{Name: "morning", Path: t.TempDir(), Schedule: "daily 09:30"})
	e.until("the daily run", 5*time.Minute, func() bool { _, ends, _ := e.runner.snapshot(); return len(ends) == 1 })
	_, ends, _ := e.runner.snapshot()
	at := ends[0].Started.UTC()
	want := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	if at.Before(want) || at.After(want.Add(5*time.Minute)) {
		t.Fatalf("daily 09:30 ran at %s", at)
	}
	e.until("the next due time", time.Millisecond, func() bool { return e.state("morning").NextDue.Equal(want.AddDate(0, 0, 1)) })
}
