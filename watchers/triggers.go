package watchers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tend-agent/tend/internal/clock"
	"github.com/tend-agent/tend/watchers/check"
	"github.com/tend-agent/tend/watchers/pathfilter"
	"github.com/tend-agent/tend/watchers/schedule"
	"github.com/tend-agent/tend/watchers/tail"
)

// maxScheduleSleep bounds one schedule timer. Timers run on the monotonic
// clock, which stands still while the machine sleeps; waking up at least
// this often and comparing with the wall clock keeps a daily 09:00 from
// running hours late after a laptop was suspended.
const maxScheduleSleep = time.Minute

// TriggerDeps are what the extra triggers need from the daemon.
type TriggerDeps struct {
	Clock     clock.Clock
	Loc       *time.Location // for wall-clock schedules; nil = local
	StateDir  string         // TEND_HOME/state: check scratch folders live below it
	ScriptDir string         // TEND_HOME/watchers: a stored check script is {id}.check there
	SkillOK   func(name string) error
}

// Triggers gathers what fires a watcher besides folder changes (schedules,
// script checks, log tails) and the path filters on change sets. A nil
// *Triggers means a plain folder watcher; every method is nil-safe.
type Triggers struct {
	deps     TriggerDeps
	paths    pathfilter.Filter
	sched    *schedule.Schedule
	check    *check.Spec
	tail     *tail.Follower
	tailAbs  string
	tailRel  string
	tailPoll time.Duration
	primed   bool

	c        chan triggerEvent
	done     chan struct{}
	schedTm  clock.Timer
	tailTm   clock.Timer
	checking context.CancelFunc
	checks   sync.WaitGroup // a running check; Close waits for it
}

// triggerEvent is a schedule, check or tail result for the engine.
type triggerEvent struct {
	kind  string // schedule, check-result, tail-poll
	res   check.Result
	extra string
}

// BuildTriggers validates and prepares a watcher's extra triggers. It
// returns nil, nil for a watcher without any. Errors name the exact
// problem, for `tend add`/`edit` and for the watcher's error state.
func BuildTriggers(def *Definition, deps TriggerDeps) (*Triggers, error) {
	if deps.Clock == nil {
		deps.Clock = clock.Real{}
	}
	t := &Triggers{deps: deps, paths: pathfilter.Filter{Include: def.Include, Exclude: def.Exclude}}
	if err := t.paths.Validate(); err != nil {
		return nil, err
	}
	any := !t.paths.Empty()
	if def.Skill != "" && deps.SkillOK != nil {
		if err := deps.SkillOK(def.Skill); err != nil {
			return nil, err
		}
	}
	if def.Schedule != "" {
		s, err := schedule.Parse(def.Schedule)
		if err != nil {
			return nil, fmt.Errorf("schedule: %w", err)
		}
		t.sched, any = s, true
	}
	if def.Check != "" || t.storedScript(def) != "" {
		spec := check.Spec{Command: def.Check, Dir: def.Path, Timeout: time.Duration(def.CheckTimeout) * time.Second,
			Env: check.Env{Name: def.Name, StateDir: filepath.Join(deps.StateDir, def.ID+".check")}}
		if spec.Command == "" {
			spec.Script = t.storedScript(def)
		}
		if def.Path != "" {
			if err := check.Validate(spec); err != nil {
				return nil, fmt.Errorf("check: %w", err)
			}
		} else if spec.Timeout < 0 || spec.Timeout > check.MaxTimeout {
			return nil, fmt.Errorf("check timeout must be between 1s and %s", check.MaxTimeout)
		}
		t.check, any = &spec, true
		if t.sched == nil {
			t.sched, _ = schedule.Parse("every 5m")
		}
	}
	if def.Tail != nil {
		tl := def.Tail
		if tl.File == "" {
			return nil, fmt.Errorf("tail: no file given: --tail FILE (inside the folder)")
		}
		if def.Path != "" {
			if err := tail.Validate(def.Path, tl.File, tl.OKPattern, tl.FailPattern); err != nil {
				return nil, fmt.Errorf("tail: %w", err)
			}
			abs, err := tail.Resolve(def.Path, tl.File)
			if err != nil {
				return nil, fmt.Errorf("tail: %w", err)
			}
			ok, fail, err := tail.Compile(tl.OKPattern, tl.FailPattern)
			if err != nil {
				return nil, fmt.Errorf("tail: %w", err)
			}
			f, err := tail.New(tail.Config{Path: abs, Root: def.Path, OK: ok, Fail: fail, Silence: time.Duration(tl.SilenceSeconds) * time.Second})
			if err != nil {
				return nil, fmt.Errorf("tail: %w", err)
			}
			t.tail, t.tailAbs = f, abs
			t.tailRel, _ = relPath(def.Path, abs)
			t.tailPoll = time.Second
		} else if _, _, err := tail.Compile(tl.OKPattern, tl.FailPattern); err != nil {
			return nil, fmt.Errorf("tail: %w", err)
		}
		any = true
	}
	if !any {
		return nil, nil
	}
	t.c = make(chan triggerEvent, 4)
	t.done = make(chan struct{})
	return t, nil
}

func (t *Triggers) storedScript(def *Definition) string {
	if t.deps.ScriptDir == "" || def.ID == "" {
		return ""
	}
	p := filepath.Join(t.deps.ScriptDir, def.ID+".check")
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		return p
	}
	return ""
}

func (t *Triggers) channel() <-chan triggerEvent {
	if t == nil {
		return nil
	}
	return t.c
}

// after delivers kind on the engine's channel once the timer fires.
func (t *Triggers) after(d time.Duration, kind string) clock.Timer {
	tm := t.deps.Clock.NewTimer(d)
	go func() {
		select {
		case <-tm.C():
			select {
			case t.c <- triggerEvent{kind: kind}:
			case <-t.done:
			}
		case <-t.done:
		}
	}()
	return tm
}

// armNext sets the schedule timer and the tail poll, and records the next
// due time in the watcher's state.
func (t *Triggers) armNext(e *Engine) {
	if t == nil {
		return
	}
	now := t.deps.Clock.Now()
	if t.sched != nil {
		if t.schedTm != nil {
			t.schedTm.Stop()
		}
		last := e.st.LastRunEnd
		if e.st.LastCheckEnd.After(last) {
			last = e.st.LastCheckEnd
		}
		next := t.sched.Next(t.sched.Anchor(last, e.def.UpdatedAt), now, t.deps.Loc)
		if !next.UTC().Equal(e.st.NextDue) {
			e.st.NextDue = next.UTC()
			defer e.save() // clients (tend show, the viewer) see the new due time
		}
		wait := next.Sub(now)
		if wait > maxScheduleSleep {
			wait = maxScheduleSleep
		}
		t.schedTm = t.after(wait, "schedule")
	}
	if t.tail != nil && !t.primed {
		// The first poll takes the file's current end as the start, so
		// only lines written from now on are judged.
		t.primed = true
		t.tail.Poll(now)
	}
	if t.tail != nil && t.tailTm == nil {
		t.tailTm = t.after(t.tailPoll, "tail-poll")
	}
}

// Close stops the trigger's timers, a running check and the tail.
func (t *Triggers) Close() {
	if t == nil {
		return
	}
	if t.done != nil {
		select {
		case <-t.done:
		default:
			close(t.done)
		}
	}
	for _, tm := range []clock.Timer{t.schedTm, t.tailTm} {
		if tm != nil {
			tm.Stop()
		}
	}
	if t.checking != nil {
		t.checking()
	}
	// A check cancelled above ends promptly (its process is killed); wait,
	// so it cannot write its scratch folder after the watcher stopped.
	t.checks.Wait()
	if t.tail != nil {
		t.tail.Close()
	}
}

// filter keeps the changed paths that may dispatch: the include/exclude
// globs, and never the tailed log itself (it speaks through verdicts).
func (t *Triggers) filter(paths []string) []string {
	if t == nil {
		return paths
	}
	if !t.paths.Empty() {
		paths = t.paths.Apply(paths)
	}
	if t.tailRel == "" {
		return paths
	}
	out := paths[:0:0]
	for _, p := range paths {
		if p != t.tailRel {
			out = append(out, p)
		}
	}
	return out
}

// onPaths polls the tail at once when its file changed.
func (t *Triggers) onPaths(e *Engine, paths []string) {
	if t == nil || t.tail == nil {
		return
	}
	for _, p := range paths {
		if p == t.tailAbs {
			e.pollTail()
			return
		}
	}
}

func (e *Engine) pollTail() {
	t := e.cfg.Triggers
	v, err := t.tail.Poll(t.deps.Clock.Now())
	if err != nil {
		e.log.Warn("reading tailed log", "file", t.tailAbs, "err", err)
		return
	}
	if v == nil {
		return
	}
	extra := fmt.Sprintf("Log verdict for %s: %s", e.def.Tail.File, strings.ToUpper(v.Kind))
	if v.Line != "" {
		extra += "\nMatching line: " + v.Line
	}
	extra += "\nLast lines of the file:\n" + strings.Join(v.LastLines, "\n")
	e.trigger(pendingRun{trigger: "tail", dryRun: e.def.DryRun, extra: extra, rank: verdictRank(v.Kind),
		note: "the log " + e.def.Tail.File + " gave a verdict: " + v.Kind})
}

// verdictRank orders log verdicts: a failure outranks silence, which
// outranks an ok, when they wait for the same run.
func verdictRank(kind string) int {
	switch kind {
	case tail.Fail:
		return 3
	case tail.Silence:
		return 2
	}
	return 1
}

// trigger starts a run for a schedule, check or tail trigger now, or
// queues it until the run in progress or the guard holding it is done.
// A trigger is never dropped, only coalesced with one of its kind.
func (e *Engine) trigger(p pendingRun) {
	if !e.accepting() {
		e.queue(p)
		e.log.Info("trigger while busy or paused; queued", "trigger", p.trigger)
		e.save()
		return
	}
	e.fireChanges(context.Background(), p, true)
}

// queue holds p back until a run may start. One trigger of each kind
// waits: a higher rank replaces a lower one, an equal rank the older.
func (e *Engine) queue(p pendingRun) {
	switch p.trigger {
	case "tail", "check", "schedule":
	default:
		return // change, startup and manual runs live in the pending diff
	}
	if old, ok := e.queued[p.trigger]; ok && old.rank > p.rank {
		return
	}
	e.queued[p.trigger] = p
	e.st.Queued = queuedKinds(e.queued)
}

// unqueue forgets the queued trigger of p's kind once p runs.
func (e *Engine) unqueue(p pendingRun) {
	if q, ok := e.queued[p.trigger]; ok && q.rank <= p.rank {
		delete(e.queued, p.trigger)
		e.st.Queued = queuedKinds(e.queued)
	}
}

// nextQueued is the trigger a timer should fire: the most urgent one
// queued (a tail verdict, then check output, then a schedule), else a
// plain change run.
func (e *Engine) nextQueued() (pendingRun, bool) {
	for _, k := range []string{"tail", "check", "schedule"} {
		if p, ok := e.queued[k]; ok {
			return p, true
		}
	}
	return pendingRun{trigger: "change", dryRun: e.def.DryRun}, false
}

func queuedKinds(q map[string]pendingRun) []string {
	var out []string
	for _, k := range []string{"tail", "check", "schedule"} {
		if _, ok := q[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

// accepting reports whether a trigger may start a run now.
func (e *Engine) accepting() bool {
	return e.run == nil && e.def.Enabled && (e.st.Phase == PhaseIdle || e.st.Phase == PhaseDebouncing)
}

func (e *Engine) onTrigger(ev triggerEvent) {
	t := e.cfg.Triggers
	switch ev.kind {
	case "tail-poll":
		t.tailTm = nil
		e.pollTail()
		t.armNext(e)
	case "schedule":
		t.schedTm = nil
		if t.deps.Clock.Now().Before(e.st.NextDue) {
			t.armNext(e) // a wake-up on the way to a later due time
			return
		}
		if t.check != nil {
			if !e.accepting() {
				// The check runs when the watcher is free again; one
				// waiting schedule fire stands for any number missed.
				e.queue(pendingRun{trigger: "schedule", dryRun: e.def.DryRun})
				e.save()
				return
			}
			e.startCheck()
			return
		}
		e.trigger(pendingRun{trigger: "schedule", dryRun: e.def.DryRun})
		if e.run == nil {
			t.armNext(e)
			e.save()
		}
	case "check-result":
		t.checking = nil
		e.onCheckResult(ev.res)
	}
}

func (e *Engine) startCheck() {
	t := e.cfg.Triggers
	spec := *t.check
	if err := os.MkdirAll(spec.Env.StateDir, 0o700); err != nil {
		e.log.Warn("creating check state folder", "err", err)
	}
	spec.Env.LastRun = e.st.LastRunEnd
	spec.Now = t.deps.Clock.Now
	ctx, cancel := context.WithCancel(context.Background())
	t.checking = cancel
	e.setPhase(e.st.Phase, "running the script check")
	t.checks.Add(1)
	go func() {
		defer t.checks.Done()
		res := check.Run(ctx, spec)
		select {
		case t.c <- triggerEvent{kind: "check-result", res: res}:
		case <-t.done:
		}
	}()
}

func (e *Engine) onCheckResult(res check.Result) {
	t := e.cfg.Triggers
	e.st.LastCheckEnd = t.deps.Clock.Now().UTC()
	e.st.LastCheck = string(res.Outcome)
	if rec, ok := e.cfg.Runner.(CheckRecorder); ok {
		rec.RecordCheck(e.def, res)
	}
	e.st.Reason = ""
	switch res.Outcome {
	case check.Output:
		e.st.CheckFailures = 0
		e.trigger(pendingRun{trigger: "check", dryRun: e.def.DryRun,
			extra: res.Output, note: "the script check printed output (below)"})
	case check.Quiet:
		e.st.CheckFailures = 0
	default:
		e.st.CheckFailures++
		if max := e.guards().MaxFailures; e.st.CheckFailures >= max && e.run == nil {
			why := string(res.Outcome)
			if res.Err != nil {
				why = res.Err.Error()
			}
			e.setPhase(PhaseError, fmt.Sprintf("the script check failed %d times in a row (%s); fix it and `tend resume %s`", e.st.CheckFailures, why, e.def.Name))
			return
		}
	}
	if e.run == nil {
		t.armNext(e)
	}
	e.save()
}

// CheckRecorder is implemented by runners that keep script-check results
// in the watcher's history (quiet, failed and timed-out checks never reach
// the model, but a person can see them).
type CheckRecorder interface {
	RecordCheck(def *Definition, res check.Result)
}
