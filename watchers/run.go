package watchers

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/tend-agent/tend/fingerprint"
)

// Runner carries out one pass of a run: the prompt, the agent loop and
// the tools. The engine owns everything around it: when to run, how many
// passes, and what counts as converged.
type Runner interface {
	Pass(ctx context.Context, req PassRequest) PassResult
	Finish(ctx context.Context, sum RunSummary)
}

// PassRequest is one pass of a run.
type PassRequest struct {
	Def     *Definition
	RunID   string
	Trigger string // change, manual, startup, schedule, check, tail
	Pass    int    // 1-based
	Changes fingerprint.Changes
	DryRun  bool
	Note    string // said to the model, e.g. "scheduled run: nothing changed"
	Extra   string // check output or log verdict
}

// Explainer tells which changed paths a run's own ledger does not account for.
type Explainer interface {
	Unexplained(root string, changed []string) []string
}

// PassResult is what a pass reports back.
type PassResult struct {
	Outcome   string // done, max-rounds, timeout, stopped, failed, skipped
	Reason    string
	Failed    bool
	Explainer Explainer
}

// RunSummary closes a run in the history.
type RunSummary struct {
	Def     *Definition
	RunID   string
	Trigger string
	Outcome string
	Reason  string
	Passes  int
	Started time.Time
	Ended   time.Time
}

type activeRun struct {
	id      string
	trigger string
	pass    int
	ctx     context.Context   // every pass of the run gets it: pause, panic and stop cancel them all
	pre     *fingerprint.Tree // what the model was told about
	cancel  context.CancelFunc
	dryRun  bool
	started time.Time
	last    PassResult
	req     pendingRun
	// handled is the baseline moved past the changes presented to the
	// model (as they were then) and past the run's own effects: the new
	// baseline when the run finishes. effects is the baseline moved past
	// the run's own effects only: the new baseline when the run fails or
	// is stopped, so what it was told about stays pending.
	handled *fingerprint.Tree
	effects *fingerprint.Tree
	// settleStart is when settle began waiting for files still being
	// written by others.
	settleStart time.Time
	// passActive is true while a pass goroutine has not reported back.
	passActive bool
	// resumeTo is the phase a manual run on a paused watcher returns to.
	resumeTo Phase
}

// pendingRun is a trigger waiting to become a run.
type pendingRun struct {
	trigger string
	dryRun  bool
	note    string
	extra   string
	rank    int // within a kind, a higher rank replaces a lower one (a fail verdict outranks an ok)
}

type passDone struct{ res PassResult }

// dispatch starts a run for the given changes, if the guards allow.
func (e *Engine) dispatch(trigger string, ch fingerprint.Changes) {
	e.dispatchWith(pendingRun{trigger: trigger, dryRun: e.def.DryRun}, ch)
}

// dispatchWith starts a run of p for ch, or holds p back (queued) while a
// guard says wait. Held-back changes stay pending in the baseline diff.
func (e *Engine) dispatchWith(p pendingRun, ch fingerprint.Changes) {
	now := e.cfg.Clock.Now()
	g := e.guards()
	if g.MaxFires > 0 && e.st.FireCount >= g.MaxFires {
		e.queue(p)
		e.setPhase(PhaseExhausted, fmt.Sprintf("reached maxFires (%d); reset with `tend resume %s --reset`", g.MaxFires, e.def.Name))
		return
	}
	// Manual runs are not held back by the cooldown: the person asked.
	if !e.st.LastRunEnd.IsZero() && p.trigger != "manual" {
		if wait := e.st.LastRunEnd.Add(time.Duration(g.CooldownSeconds) * time.Second).Sub(now); wait > 0 {
			e.queue(p)
			e.setPhase(PhaseDebouncing, fmt.Sprintf("cooling down for %s", wait.Round(time.Second)))
			e.arm(timerCooldown, wait)
			return
		}
	}
	window := time.Duration(g.BurstWindowSeconds) * time.Second
	recent := e.st.FireTimes[:0]
	for _, t := range e.st.FireTimes {
		if now.Sub(t) < window {
			recent = append(recent, t)
		}
	}
	e.st.FireTimes = recent
	if len(recent) >= g.BurstThreshold && p.trigger != "manual" {
		e.queue(p)
		e.setPhase(PhasePaused, fmt.Sprintf("paused by the burst guard: more than %d runs within %ds; resume with `tend resume %s`", g.BurstThreshold, g.BurstWindowSeconds, e.def.Name))
		return
	}
	e.unqueue(p)
	e.st.FireTimes = append(e.st.FireTimes, now)
	e.st.FireCount++
	e.st.LastTrigger = now.UTC()
	e.st.LastChanges = ch.Len()
	ctx, cancel := context.WithCancel(context.Background())
	e.run = &activeRun{
		id: e.cfg.NewRunID(), trigger: p.trigger, ctx: ctx, cancel: cancel, pre: e.live,
		dryRun: p.dryRun, started: now, req: p,
		handled: e.baseline.Graft(e.live, allPaths(ch)), effects: e.baseline,
	}
	e.st.LastRunID = e.run.id
	e.startPass(ch)
}

func (e *Engine) startPass(ch fingerprint.Changes) {
	r := e.run
	r.pass++
	e.setPhase(PhaseProcessing, "")
	req := PassRequest{
		Def: e.def, RunID: r.id, Trigger: r.trigger, Pass: r.pass,
		Changes: ch, DryRun: r.dryRun,
	}
	if r.pass == 1 {
		req.Note, req.Extra = r.req.note, r.req.extra
	}
	r.passActive = true
	ctx, slots, runner, done, log := r.ctx, e.cfg.Slots, e.cfg.Runner, e.runDone, e.log
	go func() {
		if slots != nil {
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			case <-ctx.Done():
				done <- passDone{PassResult{Outcome: "stopped", Reason: "cancelled while queued"}}
				return
			}
		}
		done <- passDone{safePass(ctx, runner, req, log)}
	}()
}

// safePass runs one pass; a panic in it fails the pass instead of the
// daemon.
func safePass(ctx context.Context, runner Runner, req PassRequest, log *slog.Logger) (res PassResult) {
	defer func() {
		if v := recover(); v != nil {
			log.Error("panic in a pass", "panic", v, "stack", string(debug.Stack()))
			res = PassResult{Outcome: "failed", Reason: fmt.Sprintf("internal error: %v", v), Failed: true}
		}
	}()
	return runner.Pass(ctx, req)
}

func (e *Engine) onPassDone(d passDone) {
	if e.run == nil {
		return
	}
	e.run.last = d.res
	e.run.passActive = false
	if e.st.Phase == PhaseProcessing {
		e.setPhase(PhaseSettling, "")
	}
	e.arm(timerSettle, time.Duration(e.def.SettleSeconds)*time.Second)
}

// Toucher is an Explainer that can also list the paths its run touched;
// the engine folds them in at settle time, so a run's own changes count
// even when their file-system events come late (or with settle 0).
type Toucher interface {
	Touched() []string
}

// settle runs after a pass and the settle time: it re-fingerprints and
// decides whether the folder has converged.
func (e *Engine) settle(ctx context.Context) {
	r := e.run
	var touched []string
	if t, ok := r.last.Explainer.(Toucher); ok {
		touched = t.Touched()
		if !e.rescan {
			for _, p := range touched {
				e.dirty[p] = struct{}{}
			}
		}
	}
	if err := e.refresh(ctx); err != nil {
		e.finishRun("failed", err.Error(), true)
		return
	}
	res := r.last
	ch := fingerprint.Diff(r.pre, e.live)
	all := allPaths(ch)
	unexplained := all
	if res.Explainer != nil && !ch.Empty() {
		unexplained = res.Explainer.Unexplained(e.def.Path, all)
	}
	// The run's own effects are taken as they are now, whatever happens
	// next: they are never news to the watcher.
	own := append(minus(all, unexplained), touched...)
	r.handled = r.handled.Graft(e.live, own)
	r.effects = r.effects.Graft(e.live, own)
	if res.Failed || res.Outcome == "stopped" || res.Outcome == "timeout" || r.dryRun {
		e.finishRun(res.Outcome, res.Reason, res.Failed)
		return
	}
	news := e.dismissFiltered(unexplained)
	if ready := e.notHot(news); len(ready) < len(news) {
		// Someone is still writing: wait for it to settle (up to the max
		// wait), so the follow-up pass gets whole files.
		if r.settleStart.IsZero() {
			r.settleStart = e.cfg.Clock.Now()
		}
		if e.cfg.Clock.Now().Sub(r.settleStart) < e.deb.MaxWait {
			e.arm(timerSettle, e.deb.Window)
			return
		}
		news = ready
	}
	r.settleStart = time.Time{}
	if len(news) == 0 {
		e.finishRun(res.Outcome, res.Reason, false)
		return
	}
	if r.pass >= e.def.MaxIterations {
		e.finishRun(res.Outcome, fmt.Sprintf("stopped after %d passes; the folder was still changing (%d change(s) stay pending for the next run)", r.pass, len(news)), false)
		return
	}
	e.log.Info("changes by others during the run; another pass", "count", len(news))
	r.pre = e.live
	r.handled = r.handled.Graft(e.live, news)
	e.startPass(restrict(ch, news))
}

// dismissFiltered returns the paths the include/exclude filters let
// through; the others are taken into the baseline (and the run's trees)
// as they are, since they never dispatch.
func (e *Engine) dismissFiltered(paths []string) []string {
	kept := e.cfg.Triggers.filter(paths)
	if len(kept) == len(paths) {
		return kept
	}
	drop := minus(paths, kept)
	e.baseline = e.baseline.Graft(e.live, drop)
	e.saveBaseline()
	if r := e.run; r != nil {
		r.handled = r.handled.Graft(e.live, drop)
		r.effects = r.effects.Graft(e.live, drop)
	}
	return kept
}

// finishRun ends the run. A run that finished handled what it was told
// about; a failed, stopped or dry run leaves it pending (only the run's
// own effects move the baseline).
func (e *Engine) finishRun(outcome, reason string, failed bool) {
	r := e.run
	e.run = nil
	now := e.cfg.Clock.Now()
	if r.cancel != nil {
		r.cancel()
	}
	handled := !failed && !r.dryRun && outcome != "stopped" && outcome != "timeout"
	if handled {
		e.baseline = r.handled
	} else {
		e.baseline = r.effects
	}
	e.st.Runs++
	e.st.LastRunEnd = now.UTC()
	e.st.LastOutcome = outcome
	if failed {
		e.st.Failures++
	} else {
		e.st.Failures = 0
	}
	e.cfg.Runner.Finish(context.Background(), RunSummary{
		Def: e.def, RunID: r.id, Trigger: r.trigger, Outcome: outcome, Reason: reason,
		Passes: r.pass, Started: r.started, Ended: now,
	})
	// After Finish: the history's fsync need not wait behind the tree's.
	e.saveBaseline()
	e.notePending()
	if !handled {
		e.queue(r.req) // a tail verdict or check output that did not get through waits
	}
	if max := e.guards().MaxFailures; failed && e.st.Failures >= max {
		e.setPhase(PhaseError, fmt.Sprintf("paused after %d failed runs in a row: %s; fix it and `tend resume %s` (%d change(s) pending)", e.st.Failures, reason, e.def.Name, e.st.PendingCount))
		return
	}
	if e.st.Phase == PhasePaused {
		e.save()
		return
	}
	if r.resumeTo != "" {
		e.setPhase(r.resumeTo, "manual run finished")
		return
	}
	e.setPhase(PhaseIdle, "")
	e.cfg.Triggers.armNext(e)
	switch {
	case failed:
		// The model server failed: try again later, with backoff.
		wait := retryBackoff(e.st.Failures)
		e.setPhase(PhaseDebouncing, fmt.Sprintf("run failed: %s; retrying in %s", reason, wait.Round(time.Second)))
		e.arm(timerCooldown, wait)
	case len(e.dirty) > 0 || e.rescan || (handled && e.st.PendingCount > 0) || len(e.queued) > 0:
		now := e.cfg.Clock.Now()
		e.deb.Add(now)
		e.setPhase(PhaseDebouncing, "")
		e.arm(timerDebounce, e.deb.Due().Sub(now))
	}
}

// retryBackoff is the wait before the next try after n failed runs in a
// row: 10 s, 20 s, 40 s, … at most 10 minutes.
func retryBackoff(n int) time.Duration {
	d := 10 * time.Second
	for i := 1; i < n && d < 10*time.Minute; i++ {
		d *= 2
	}
	return min(d, 10*time.Minute)
}

func (e *Engine) onTimer(ctx context.Context, k timerKind) {
	switch k {
	case timerDebounce, timerCooldown:
		e.deb.Reset()
		p, force := e.nextQueued()
		e.fireChanges(ctx, p, force)
	case timerSettle:
		if e.run != nil {
			e.settle(ctx)
		}
	case timerRetry:
		if e.st.Phase == PhaseError && e.def.Enabled {
			e.start(ctx, false)
		}
	}
}

// fireChanges looks at what changed since the baseline and dispatches it.
// A change set that is empty (or filtered out) goes back to idle without
// counting as a fire, unless force says the trigger wants a run anyway.
// Paths still being written (an event within the tier's window) are held
// back until they settle, even when the max wait forces a dispatch.
func (e *Engine) fireChanges(ctx context.Context, p pendingRun, force bool) {
	if e.st.Phase != PhaseIdle && e.st.Phase != PhaseDebouncing {
		if force {
			e.queue(p)
		}
		return
	}
	// Events already delivered but not yet read would otherwise show up
	// only after the model was told about the older state of their paths.
	e.drainNotices()
	if err := e.refresh(ctx); err != nil {
		e.fail(err)
		return
	}
	ch := fingerprint.Diff(e.baseline, e.live)
	kept := e.dismissFiltered(allPaths(ch))
	ready := e.notHot(kept)
	if len(kept) > len(ready) && len(ready) == 0 && !force {
		// Only files still being written: wait for them to settle.
		e.notePending()
		now := e.cfg.Clock.Now()
		e.deb.Add(now)
		e.setPhase(PhaseDebouncing, fmt.Sprintf("waiting for %d file(s) still being written", len(kept)))
		e.arm(timerDebounce, e.deb.Due().Sub(now))
		return
	}
	e.notePending()
	if len(ready) == 0 && !force {
		e.setPhase(PhaseIdle, "")
		return
	}
	if len(ready) == 0 && p.note == "" {
		p.note = p.trigger + " run: nothing changed in the folder since the last run"
	} else if len(ready) == 0 {
		p.note += "; nothing changed in the folder since the last run"
	}
	e.dispatchWith(p, restrict(ch, ready))
}

// notHot drops the paths with an event within the tier's window, and the
// added folders that hold them: they are still being written and stay
// pending until they settle.
func (e *Engine) notHot(paths []string) []string {
	now := e.cfg.Clock.Now()
	busy := map[string]bool{} // hot paths and every folder above them
	for p, t := range e.lastSeen {
		if now.Sub(t) >= e.deb.Window {
			delete(e.lastSeen, p)
			continue
		}
		for q := p; q != "" && !busy[q]; q = parentRel(q) {
			busy[q] = true
		}
	}
	if len(busy) == 0 {
		return paths
	}
	out := paths[:0:0]
	for _, p := range paths {
		if !busy[p] {
			out = append(out, p)
		}
	}
	return out
}

// parentRel is the folder holding a relative slash path ("" at the top).
func parentRel(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// maxPendingListed bounds the pending paths written to the state file;
// the count is always exact.
const maxPendingListed = 200

// notePending records what is still pending: the changes between the
// baseline and the folder as last seen, after the filters.
func (e *Engine) notePending() {
	e.st.Pending = e.st.Pending[:0]
	e.st.PendingCount = 0
	if e.baseline == nil || e.live == nil {
		return
	}
	ch := fingerprint.Diff(e.baseline, e.live)
	add := func(paths []string, kind string) {
		for _, p := range e.cfg.Triggers.filter(paths) {
			e.st.PendingCount++
			if len(e.st.Pending) < maxPendingListed {
				e.st.Pending = append(e.st.Pending, PendingChange{Path: p, Kind: kind})
			}
		}
	}
	add(ch.Added, "added")
	add(ch.Removed, "removed")
	add(ch.Modified, "modified")
}

func (e *Engine) guards() Guards {
	g := e.def.Guards
	if g.CooldownSeconds == 0 {
		g.CooldownSeconds = 10
	}
	if g.CooldownSeconds < 5 {
		g.CooldownSeconds = 5
	}
	if g.BurstThreshold == 0 {
		g.BurstThreshold = 5
	}
	if g.BurstWindowSeconds == 0 {
		g.BurstWindowSeconds = 60
	}
	if g.MaxFailures == 0 {
		g.MaxFailures = 3
	}
	return g
}

func allPaths(ch fingerprint.Changes) []string {
	out := make([]string, 0, ch.Len())
	out = append(out, ch.Added...)
	out = append(out, ch.Removed...)
	out = append(out, ch.Modified...)
	return out
}

// minus returns the paths of a that are not in b.
func minus(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	drop := make(map[string]bool, len(b))
	for _, p := range b {
		drop[p] = true
	}
	out := a[:0:0]
	for _, p := range a {
		if !drop[p] {
			out = append(out, p)
		}
	}
	return out
}

// restrict keeps only the listed paths of a change set.
func restrict(ch fingerprint.Changes, keep []string) fingerprint.Changes {
	set := make(map[string]bool, len(keep))
	for _, p := range keep {
		set[p] = true
	}
	pick := func(in []string) []string {
		var out []string
		for _, p := range in {
			if set[p] {
				out = append(out, p)
			}
		}
		return out
	}
	return fingerprint.Changes{Added: pick(ch.Added), Removed: pick(ch.Removed), Modified: pick(ch.Modified)}
}
