package watchers

import (
	"context"
	"errors"
	"fmt"

	"github.com/tend-agent/tend/fingerprint"
)

// errStopped is returned when the engine has already stopped.
var errStopped = errors.New("watcher is stopping")

// do runs f on the engine goroutine and waits for it. A panic in f
// fails the call (and puts the watcher in error) instead of the daemon.
func (e *Engine) do(ctx context.Context, f func() error) error {
	errc := make(chan error, 1)
	run := func() {
		defer func() {
			if v := recover(); v != nil {
				errc <- fmt.Errorf("internal error in watcher %s: %v", e.def.Name, v)
				panic(v) // for the engine's recover, which records it
			}
		}()
		errc <- f()
	}
	select {
	case e.cmds <- run:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// State returns a copy of the runtime state.
func (e *Engine) State(ctx context.Context) (State, error) {
	var st State
	err := e.do(ctx, func() error { st = e.st; st.FireTimes = nil; return nil })
	return st, err
}

// RunNow dispatches what changed since the last run, even if nothing did.
func (e *Engine) RunNow(ctx context.Context, dryRun bool) (string, error) {
	var id string
	err := e.do(ctx, func() error {
		if e.run != nil {
			return errBusy
		}
		if e.rootGone {
			return fmt.Errorf("folder %s is missing or unreadable", e.def.Path)
		}
		e.stopTimer()
		e.deb.Reset()
		prev := e.st.Phase
		if prev != PhaseIdle && prev != PhaseDebouncing {
			// A manual run works on a paused watcher too; it stays paused after.
			e.st.Phase = PhaseIdle
		}
		e.fireChanges(ctx, pendingRun{trigger: "manual", dryRun: dryRun || e.def.DryRun}, true)
		if e.run == nil {
			why := e.st.Reason
			if prev == PhasePaused || prev == PhaseError {
				e.setPhase(prev, e.st.Reason)
			}
			return fmt.Errorf("run did not start: %s", why)
		}
		id = e.run.id
		if prev == PhasePaused || prev == PhaseExhausted {
			e.run.resumeTo = prev
		}
		return nil
	})
	return id, err
}

// Pause stops the watcher from dispatching and cancels a run in flight.
// The changes it had not handled stay pending.
func (e *Engine) Pause(ctx context.Context, reason string) error {
	return e.do(ctx, func() error {
		if reason == "" {
			reason = "paused by the user"
		}
		e.stopTimer()
		e.deb.Reset()
		if e.run != nil && e.run.cancel != nil {
			e.run.cancel()
		}
		e.setPhase(PhasePaused, reason)
		return nil
	})
}

// Resume lets a paused, exhausted or failed watcher run again; reset
// also clears its fire count. What is pending is dispatched.
func (e *Engine) Resume(ctx context.Context, reset bool) error {
	return e.do(ctx, func() error {
		if e.st.Phase == PhaseExhausted && !reset {
			return fmt.Errorf("watcher %s reached its maxFires (%d): resume it with `tend resume %s --reset`", e.def.Name, e.guards().MaxFires, e.def.Name)
		}
		if reset {
			e.st.FireCount = 0
		}
		e.st.FireTimes = nil
		e.st.Failures = 0
		e.st.CheckFailures = 0
		if e.run != nil {
			e.setPhase(PhaseProcessing, "")
			return nil
		}
		if e.src == nil || e.baseline == nil {
			// The event source lives as long as the engine, not the request.
			e.start(e.ctx, false)
			return nil
		}
		e.setPhase(PhaseIdle, "")
		// What changed while paused (and was held back) runs now, and a
		// queued trigger with it.
		p, force := e.nextQueued()
		e.fireChanges(ctx, p, force)
		e.cfg.Triggers.armNext(e)
		return nil
	})
}

// Forget dismisses every pending change: the folder as it is now becomes
// the baseline, and queued triggers are dropped.
func (e *Engine) Forget(ctx context.Context) error {
	return e.do(ctx, func() error {
		if e.run != nil {
			return errBusy
		}
		tree, err := fingerprint.Build(ctx, e.def.Path, e.fpOptions())
		if err != nil {
			return fmt.Errorf("fingerprinting %s: %w", e.def.Path, err)
		}
		e.live, e.baseline, e.rescan = tree, tree, false
		e.dirty = map[string]struct{}{}
		clear(e.lastSeen)
		clear(e.queued)
		e.st.Queued = nil
		e.saveBaseline()
		e.treeW.wait() // a restart right after must find the new baseline
		e.notePending()
		if e.st.Phase == PhaseDebouncing {
			e.stopTimer()
			e.deb.Reset()
			e.setPhase(PhaseIdle, "")
		}
		e.save()
		return nil
	})
}

// ResetFires clears the fire count and the burst history (a detached
// copy starts afresh).
func (e *Engine) ResetFires(ctx context.Context) error {
	return e.do(ctx, func() error {
		e.st.FireCount, e.st.FireTimes = 0, nil
		e.save()
		return nil
	})
}

// Rebaseline runs f (an undo), which returns the paths it changed, and
// takes those paths as they are now into the baseline, so tend's own
// changes do not wake the watcher. Anything else that changed meanwhile
// is still news and is dispatched as usual.
func (e *Engine) Rebaseline(ctx context.Context, f func() ([]string, error)) error {
	return e.do(ctx, func() error {
		if e.run != nil {
			return errBusy
		}
		touched, ferr := f()
		if ferr == nil && len(touched) > 0 && e.baseline != nil {
			base, err := e.baseline.UpdatePaths(touched)
			if err != nil {
				e.log.Warn("folding undo into the baseline; taking the folder as it is", "err", err)
				e.rescan = true
				if err := e.refresh(ctx); err != nil {
					return err
				}
				base = e.live
			}
			e.baseline = base
			e.saveBaseline()
			if e.live != nil {
				for _, p := range touched {
					e.dirty[p] = struct{}{}
				}
			}
		}
		if ferr != nil {
			// A refused undo changed nothing: what others changed meanwhile
			// (often the very reason it refused) is still news to the watcher.
			return ferr
		}
		e.save()
		if e.st.Phase == PhaseIdle || e.st.Phase == PhaseDebouncing {
			now := e.cfg.Clock.Now()
			e.deb.Add(now)
			e.setPhase(PhaseDebouncing, "")
			e.arm(timerDebounce, e.deb.Due().Sub(now))
		}
		return nil
	})
}
