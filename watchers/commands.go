package watchers

import (
	"context"
	"errors"
	"fmt"
)

// errStopped is returned when the engine has already stopped.
var errStopped = errors.New("watcher is stopping")

// do runs f on the engine goroutine and waits for it.
func (e *Engine) do(ctx context.Context, f func() error) error {
	errc := make(chan error, 1)
	select {
	case e.cmds <- func() { errc <- f() }:
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
			return fmt.Errorf("run did not start: %s", e.st.Reason)
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
// also clears its fire count.
func (e *Engine) Resume(ctx context.Context, reset bool) error {
	return e.do(ctx, func() error {
		if reset {
			e.st.FireCount = 0
		}
		e.st.FireTimes = nil
		e.st.Failures = 0
		if e.run != nil {
			e.setPhase(PhaseProcessing, "")
			return nil
		}
		if e.src == nil || e.baseline == nil {
			e.start(ctx, true)
			return nil
		}
		e.setPhase(PhaseIdle, "")
		// What changed while paused (and was held back) runs now.
		e.fireChanges(ctx, pendingRun{trigger: "change", dryRun: e.def.DryRun}, false)
		e.cfg.Triggers.armNext(e)
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
		if ferr == nil && len(touched) > 0 {
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
			for _, p := range touched {
				e.dirty[p] = struct{}{}
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
