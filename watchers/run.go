package watchers

import (
	"context"
	"fmt"
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
	pre     *fingerprint.Tree // what the model was told about
	cancel  context.CancelFunc
	dryRun  bool
	started time.Time
	last    PassResult
	note    string
	extra   string
	// passActive is true while a pass goroutine has not reported back.
	passActive bool
	// resumeTo is the phase a manual run on a paused watcher returns to.
	resumeTo Phase
}

type pendingRun struct {
	trigger string
	dryRun  bool
	note    string
	extra   string
}

type passDone struct{ res PassResult }

// dispatch starts a run for the given changes, if the guards allow.
func (e *Engine) dispatch(trigger string, ch fingerprint.Changes) {
	e.dispatchWith(pendingRun{trigger: trigger, dryRun: e.def.DryRun}, ch)
}

func (e *Engine) dispatchWith(p pendingRun, ch fingerprint.Changes) {
	now := e.cfg.Clock.Now()
	g := e.guards()
	if g.MaxFires > 0 && e.st.FireCount >= g.MaxFires {
		e.setPhase(PhaseExhausted, fmt.Sprintf("reached maxFires (%d); reset with `tend resume %s --reset`", g.MaxFires, e.def.Name))
		return
	}
	// Manual runs are not held back by the cooldown: the person asked.
	if !e.st.LastRunEnd.IsZero() && p.trigger != "manual" {
		if wait := e.st.LastRunEnd.Add(time.Duration(g.CooldownSeconds) * time.Second).Sub(now); wait > 0 {
			e.pending = &p
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
	if len(recent) >= g.BurstThreshold {
		e.setPhase(PhasePaused, fmt.Sprintf("paused by the burst guard: more than %d runs within %ds; resume with `tend resume %s`", g.BurstThreshold, g.BurstWindowSeconds, e.def.Name))
		return
	}
	e.st.FireTimes = append(e.st.FireTimes, now)
	e.st.FireCount++
	e.st.LastTrigger = now.UTC()
	e.st.LastChanges = ch.Len()
	ctx, cancel := context.WithCancel(context.Background())
	e.run = &activeRun{
		id: e.cfg.NewRunID(), trigger: p.trigger, cancel: cancel, pre: e.live,
		dryRun: p.dryRun, started: now, note: p.note, extra: p.extra,
	}
	e.st.LastRunID = e.run.id
	e.startPass(ctx, ch)
}

func (e *Engine) startPass(ctx context.Context, ch fingerprint.Changes) {
	r := e.run
	r.pass++
	e.setPhase(PhaseProcessing, "")
	req := PassRequest{
		Def: e.def, RunID: r.id, Trigger: r.trigger, Pass: r.pass,
		Changes: ch, DryRun: r.dryRun,
	}
	if r.pass == 1 {
		req.Note, req.Extra = r.note, r.extra
	}
	r.passActive = true
	slots, runner, done := e.cfg.Slots, e.cfg.Runner, e.runDone
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
		done <- passDone{runner.Pass(ctx, req)}
	}()
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
	if t, ok := r.last.Explainer.(Toucher); ok && !e.rescan {
		for _, p := range t.Touched() {
			e.dirty[p] = struct{}{}
		}
	}
	if err := e.refresh(ctx); err != nil {
		e.finishRun("failed", err.Error(), true)
		return
	}
	res := r.last
	if res.Failed || res.Outcome == "stopped" || r.dryRun {
		e.finishRun(res.Outcome, res.Reason, res.Failed)
		return
	}
	ch := fingerprint.Diff(r.pre, e.live)
	if ch.Empty() {
		e.finishRun(res.Outcome, res.Reason, false)
		return
	}
	var unexplained []string
	all := allPaths(ch)
	if res.Explainer != nil {
		unexplained = res.Explainer.Unexplained(e.def.Path, all)
	} else {
		unexplained = all
	}
	unexplained = e.cfg.Triggers.filter(unexplained)
	if len(unexplained) == 0 {
		e.finishRun(res.Outcome, res.Reason, false)
		return
	}
	if r.pass >= e.def.MaxIterations {
		e.finishRun(res.Outcome, fmt.Sprintf("stopped after %d passes; the folder was still changing", r.pass), false)
		return
	}
	e.log.Info("changes by others during the run; another pass", "count", len(unexplained))
	r.pre = e.live
	e.startPass(context.Background(), restrict(ch, unexplained))
}

func (e *Engine) finishRun(outcome, reason string, failed bool) {
	r := e.run
	e.run = nil
	now := e.cfg.Clock.Now()
	if r.cancel != nil {
		r.cancel()
	}
	e.baseline = e.live
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
	if max := e.guards().MaxFailures; failed && e.st.Failures >= max {
		e.setPhase(PhaseError, fmt.Sprintf("paused after %d failed runs in a row: %s; fix it and `tend resume %s`", e.st.Failures, reason, e.def.Name))
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
	if len(e.dirty) > 0 || e.rescan {
		now := e.cfg.Clock.Now()
		e.deb.Add(now)
		e.setPhase(PhaseDebouncing, "")
		e.arm(timerDebounce, e.deb.Due().Sub(now))
	}
}

func (e *Engine) onTimer(ctx context.Context, k timerKind) {
	switch k {
	case timerDebounce:
		e.deb.Reset()
		e.fireChanges(ctx, pendingRun{trigger: "change", dryRun: e.def.DryRun}, false)
	case timerCooldown:
		p := e.pending
		e.pending = nil
		if p == nil {
			p = &pendingRun{trigger: "change", dryRun: e.def.DryRun}
		}
		e.fireChanges(ctx, *p, p.trigger != "change")
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
func (e *Engine) fireChanges(ctx context.Context, p pendingRun, force bool) {
	if e.st.Phase != PhaseIdle && e.st.Phase != PhaseDebouncing {
		return
	}
	if err := e.refresh(ctx); err != nil {
		e.fail(err)
		return
	}
	ch := fingerprint.Diff(e.baseline, e.live)
	kept := e.cfg.Triggers.filter(allPaths(ch))
	if len(kept) == 0 && !force {
		e.baseline = e.live
		e.saveBaseline()
		e.setPhase(PhaseIdle, "")
		return
	}
	if len(kept) == 0 && p.note == "" {
		p.note = p.trigger + " run: nothing changed in the folder since the last run"
	} else if len(kept) == 0 {
		p.note += "; nothing changed in the folder since the last run"
	}
	e.dispatchWith(p, restrict(ch, kept))
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
