package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/watchers"
)

// Regression tests for issue 8: every change is handled or held, and the
// daemon never dies. Each drives the real daemon through its API.

// presented collects every path listed in the first turn of every pass
// the stand-in saw.
func presented(srv *modeltest.Server) []string {
	var out []string
	for _, r := range firstTurns(srv) {
		out = append(out, listed(r.FirstUser(), true)...)
	}
	return out
}

// switchable answers with fail while broken is set, then like sorter.
type switchable struct {
	broken atomic.Bool
	fail   modeltest.Response
}

func (s *switchable) script(r modeltest.Request) modeltest.Response {
	if s.broken.Load() {
		return s.fail
	}
	return sorter(r)
}

// Finding 1: pause then undo crashed the daemon (nil baseline).
func TestPauseThenUndoKeepsDaemon(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOllama(t, sorter)
	e := start(t, envOptions{})
	dir := t.TempDir()
	e.add(watchers.Definition{Name: "pu", Path: dir, Provider: ollama(srv)})
	writeFile(t, filepath.Join(dir, "a.txt"), "a", 0o644)
	e.waitRuns("pu", 1)
	if err := e.c.Pause(e.ctx, "pu"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Undo(e.ctx, "pu", ""); err != nil {
		t.Fatalf("undo of a paused watcher: %v", err)
	}
	if _, err := e.c.Status(e.ctx); err != nil {
		t.Fatalf("daemon gone after pause + undo: %v", err)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "a" {
		t.Fatalf("undo did not put a.txt back: %q", got)
	}
	// The undo is tend's own change: resuming does not hand it to the model.
	if err := e.c.Resume(e.ctx, "pu", api.ResumeRequest{}); err != nil {
		t.Fatal(err)
	}
	e.quiet("pu", 1)
}

// Finding 2: a follow-up pass ignored cancellation, and the daemon's lock
// was held while it ran. Pause during pass 2 stops it at once and the API
// keeps answering.
func TestPauseStopsFollowUpPass(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	release := make(chan struct{})
	var n atomic.Int32
	srv := modeltest.NewOllama(t, func(r modeltest.Request) modeltest.Response {
		if r.Last().Role == "user" {
			switch n.Add(1) {
			case 1:
				close(arrived)
				<-release
			case 2:
				return modeltest.Response{Hang: true}
			}
		}
		return sorter(r)
	})
	e := start(t, envOptions{})
	dir := t.TempDir()
	e.add(watchers.Definition{Name: "fu", Path: dir, Provider: ollama(srv)})
	writeFile(t, filepath.Join(dir, "a.txt"), "a", 0o644)
	<-arrived
	writeFile(t, filepath.Join(dir, "late.txt"), "late", 0o644)
	close(release)
	e.waitFor("the follow-up pass", func() bool { return n.Load() == 2 })
	ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
	defer cancel()
	if err := e.c.Pause(ctx, "fu"); err != nil {
		t.Fatalf("pause during a follow-up pass: %v", err)
	}
	if _, err := e.c.List(ctx); err != nil {
		t.Fatalf("the API froze after pausing a follow-up pass: %v", err)
	}
	runs := e.waitRuns("fu", 1)
	if end := runs[0].End; end.Outcome != dispatch.OutcomeStopped {
		t.Fatalf("the follow-up pass ended %q, want stopped", end.Outcome)
	}
	// late.txt was told about but not handled: it is still pending.
	// (The run's end is in the history a moment before the state says
	// what is pending.)
	e.waitFor("late.txt pending after the stopped run", func() bool { return pendingHas(e.state("fu"), "late.txt") })
}

func pendingHas(st watchers.State, p string) bool {
	return slices.ContainsFunc(st.Pending, func(c watchers.PendingChange) bool { return c.Path == p })
}

// Finding 3: changes of failed runs were lost. Three failures put the
// watcher in error; once the model is back, resume hands the files over.
func TestFailedRunsKeepTheirChanges(t *testing.T) {
	t.Parallel()
	sw := &switchable{fail: modeltest.Error(500, "the model runner crashed")}
	sw.broken.Store(true)
	srv := modeltest.NewOllama(t, sw.script)
	e := start(t, envOptions{})
	dir := t.TempDir()
	e.add(watchers.Definition{Name: "ff", Path: dir, Provider: ollama(srv)})
	writeFile(t, filepath.Join(dir, "a.txt"), "a", 0o644)
	for i := 1; i <= 3; i++ {
		if i > 1 {
			if _, err := e.c.Run(e.ctx, "ff", false); err != nil {
				t.Fatalf("run %d: %v", i, err)
			}
		}
		e.waitRuns("ff", i)
	}
	st := e.state("ff")
	if st.Phase != watchers.PhaseError || !pendingHas(st, "a.txt") {
		t.Fatalf("after 3 failures: phase %s, pending %+v; want error with a.txt pending", st.Phase, st.Pending)
	}
	sw.broken.Store(false)
	if err := e.c.Resume(e.ctx, "ff", api.ResumeRequest{}); err != nil {
		t.Fatal(err)
	}
	runs := e.waitRuns("ff", 4)
	if runs[0].End.Outcome != dispatch.OutcomeDone {
		t.Fatalf("run after resume: %s", describe(runs[:1]))
	}
	if _, err := readFileErr(filepath.Join(dir, "Sorted", "a.txt")); err != nil {
		t.Fatalf("a.txt was never handled: %v", err)
	}
	if st := e.state("ff"); st.PendingCount != 0 {
		t.Fatalf("still pending after the good run: %+v", st.Pending)
	}
}

// Finding 3: a dry run does not consume the change; the next real run
// gets it.
func TestDryRunKeepsChangesPending(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOllama(t, sorter)
	e := start(t, envOptions{})
	dir := t.TempDir()
	e.add(watchers.Definition{Name: "dry", Path: dir, Provider: ollama(srv)})
	if err := e.c.Pause(e.ctx, "dry"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "a.txt"), "a", 0o644)
	if _, err := e.c.Run(e.ctx, "dry", true); err != nil {
		t.Fatal(err)
	}
	e.waitRuns("dry", 1)
	if st := e.state("dry"); !pendingHas(st, "a.txt") {
		t.Fatalf("the dry run consumed a.txt: pending %+v", st.Pending)
	}
	if err := e.c.Resume(e.ctx, "dry", api.ResumeRequest{}); err != nil {
		t.Fatal(err)
	}
	e.waitRuns("dry", 2)
	if got := presented(srv); !slices.Equal(got, []string{"a.txt", "a.txt"}) {
		t.Fatalf("presented %v, want a.txt in the dry run and again in the real one", got)
	}
	if _, err := readFileErr(filepath.Join(dir, "Sorted", "a.txt")); err != nil {
		t.Fatalf("a.txt not sorted after resume: %v", err)
	}
}

// Finding 3: changes made while paused, and the change of a run stopped by
// `tend panic`, run on resume; resume --forget dismisses them instead.
func TestPausedAndPanickedChangesRunOnResume(t *testing.T) {
	t.Parallel()
	var hang atomic.Bool
	hang.Store(true)
	srv := modeltest.NewOllama(t, func(r modeltest.Request) modeltest.Response {
		if hang.Load() {
			return modeltest.Response{Hang: true}
		}
		return sorter(r)
	})
	e := start(t, envOptions{})
	dir := t.TempDir()
	e.add(watchers.Definition{Name: "pp", Path: dir, Provider: ollama(srv)})
	writeFile(t, filepath.Join(dir, "during.txt"), "x", 0o644)
	e.waitFor("the model request", func() bool { return srv.Calls() == 1 })
	if err := e.c.Panic(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.waitRuns("pp", 1)
	writeFile(t, filepath.Join(dir, "paused.txt"), "y", 0o644)
	hang.Store(false)
	if err := e.c.Resume(e.ctx, "pp", api.ResumeRequest{}); err != nil {
		t.Fatal(err)
	}
	e.waitRuns("pp", 2)
	for _, f := range []string{"during.txt", "paused.txt"} {
		if _, err := readFileErr(filepath.Join(dir, "Sorted", f)); err != nil {
			t.Fatalf("%s was not handled after resume: %v", f, err)
		}
	}

	// resume --forget: what changed while paused is dismissed.
	if err := e.c.Pause(e.ctx, "pp"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "forgotten.txt"), "z", 0o644)
	if err := e.c.Resume(e.ctx, "pp", api.ResumeRequest{Forget: true}); err != nil {
		t.Fatal(err)
	}
	e.quiet("pp", 2)
	if st := e.state("pp"); st.PendingCount != 0 {
		t.Fatalf("pending after resume --forget: %+v", st.Pending)
	}
}

// Finding 3 (the trickle): files that arrive during the last allowed pass
// are not folded into the baseline; a later run handles them.
func TestChangesAfterLastPassStayPending(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var dir string
	k := 0
	srv := modeltest.NewOllama(t, func(r modeltest.Request) modeltest.Response {
		if r.Last().Role == "user" {
			mu.Lock()
			k++
			if k <= 2 { // someone drops a file while each of the first two passes works
				writeFile(t, filepath.Join(dir, "t"+string(rune('0'+k))+".txt"), "t", 0o644)
			}
			mu.Unlock()
		}
		return sorter(r)
	})
	e := start(t, envOptions{})
	dir = t.TempDir()
	e.add(watchers.Definition{Name: "tr", Path: dir, Provider: ollama(srv), MaxIterations: 2, SettleSeconds: 1})
	writeFile(t, filepath.Join(dir, "first.txt"), "f", 0o644)
	e.waitFor("every file sorted", func() bool {
		for _, f := range []string{"first.txt", "t1.txt", "t2.txt"} {
			if _, err := readFileErr(filepath.Join(dir, "Sorted", f)); err != nil {
				return false
			}
		}
		return true
	})
	got := presented(srv)
	slices.Sort(got)
	if want := []string{"first.txt", "t1.txt", "t2.txt"}; !slices.Equal(got, want) {
		t.Fatalf("presented %v, want each file exactly once: %v", got, want)
	}
}

// Finding 8: resume of an exhausted watcher (without --reset) and of a
// template says why it does nothing.
func TestResumeRefusesWhatItCannotDo(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOllama(t, sorter)
	e := start(t, envOptions{})
	dir := t.TempDir()
	e.add(watchers.Definition{Name: "ex", Path: dir, Provider: ollama(srv), Guards: watchers.Guards{MaxFires: 1}})
	writeFile(t, filepath.Join(dir, "a.txt"), "a", 0o644)
	e.waitRuns("ex", 1)
	writeFile(t, filepath.Join(dir, "b.txt"), "b", 0o644)
	e.waitFor("exhausted", func() bool { return e.state("ex").Phase == watchers.PhaseExhausted })
	err := e.c.Resume(e.ctx, "ex", api.ResumeRequest{})
	if err == nil || !strings.Contains(err.Error(), "--reset") {
		t.Fatalf("resume of an exhausted watcher: %v, want an error naming --reset", err)
	}
	if err := e.c.Resume(e.ctx, "ex", api.ResumeRequest{Reset: true}); err != nil {
		t.Fatal(err)
	}
	e.waitRuns("ex", 2) // b.txt was held, not lost
	if _, err := readFileErr(filepath.Join(dir, "Sorted", "b.txt")); err != nil {
		t.Fatalf("b.txt not handled after resume --reset: %v", err)
	}
	if _, err := e.c.Add(e.ctx, api.AddRequest{Definition: watchers.Definition{Name: "tpl", Instructions: "x", Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Resume(e.ctx, "tpl", api.ResumeRequest{}); err == nil || !strings.Contains(err.Error(), "template") {
		t.Fatalf("resume of a template: %v, want an error saying it is a template", err)
	}
}

func readFileErr(p string) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}
