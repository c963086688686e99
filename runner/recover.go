package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/sandbox"
	"github.com/tend-agent/tend/watchers"
)

// Recover settles the runs of def that a crash interrupted: each run
// folder whose journal has no end record (see sandbox.RecoverJournal).
// Completed steps stay undoable (their ledger is saved for `tend undo`),
// half-done steps are confirmed or taken back, and the run is closed in
// the history as "interrupted". Every path such a run touched goes to fold,
// for the engine to take into its baseline (they are the run's own doing,
// not news to dispatch again) before the journal is closed, so a crash in
// between recovers the run again rather than dispatching its changes. Runs
// still going in this process are left alone.
func (r *Runner) Recover(def *watchers.Definition, fold func(paths []string) error) {
	base := filepath.Join(r.cfg.Home.Runs(), def.ID)
	ents, err := os.ReadDir(base)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			r.cfg.Log.Error("looking for interrupted runs", "watcher", def.Name, "err", err)
		}
		return
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		r.mu.Lock()
		live := r.runs[id] != nil
		r.mu.Unlock()
		if live {
			continue
		}
		if err := r.recoverRun(def, id, fold); err != nil {
			r.cfg.Log.Error("recovering an interrupted run", "watcher", def.Name, "run", id, "err", err)
		}
	}
}

// recoverRun settles one run folder's journal, if it has one without an
// end record.
func (r *Runner) recoverRun(def *watchers.Definition, runID string, fold func([]string) error) error {
	dir := r.runDir(def.ID, runID)
	jpath := filepath.Join(dir, sandbox.JournalFile)
	ended, err := sandbox.JournalEnded(jpath)
	if errors.Is(err, os.ErrNotExist) || (err == nil && ended) {
		return nil
	}
	if err != nil {
		return err
	}
	rec, err := sandbox.RecoverJournal(jpath, def.Path, r.cfg.Trash, r.cfg.Clock.Now)
	if err != nil {
		return err
	}
	l := rec.Ledger
	if len(l.Effects) > 0 || len(l.Unresolved) > 0 {
		if err := l.Save(filepath.Join(dir, "ledger.json")); err != nil {
			return err
		}
	}
	if fold != nil && len(rec.Touched) > 0 {
		if err := fold(rec.Touched); err != nil {
			return fmt.Errorf("taking the run's changes into the baseline: %w", err)
		}
	}
	hist := r.history(def.ID)
	runs, _ := dispatch.ReadHistory(hist.Path())
	if run, ok := dispatch.FindRun(runs, runID); ok && run.ID == runID && run.End != nil {
		return rec.End() // the history closed it already; only the journal's end was missing
	}
	reason := fmt.Sprintf("the daemon stopped during this run; %d change(s) it made are kept and can be undone with `tend undo %s --run %s`",
		len(l.Effects), def.Name, runID)
	if len(rec.Settled) > 0 {
		reason += "; the step under way: " + strings.Join(rec.Settled, "; ")
	}
	if len(l.Unresolved) > 0 {
		reason += "; not undoable: " + strings.Join(l.Unresolved, "; ")
	}
	if len(l.Effects) > 0 {
		effects, _ := json.Marshal(l.Effects)
		hist.Append(dispatch.Record{Type: dispatch.RecLedger, RunID: runID, Effects: effects})
	}
	if err := hist.Append(dispatch.Record{Type: dispatch.RecRunEnd, RunID: runID, Outcome: sandbox.OutcomeInterrupted, Reason: reason}); err != nil {
		return err
	}
	r.cfg.Log.Warn("recovered an interrupted run", "watcher", def.Name, "run", runID, "kept", len(l.Effects), "unresolved", len(l.Unresolved))
	return rec.End()
}
