package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/sandbox"
	"github.com/tend-agent/tend/watchers"
)

// Undo reverses a run's ledger (the last run that changed something when
// runID is empty). It refuses, changing nothing, where the folder has
// changed since the run.
func (r *Runner) Undo(ctx context.Context, def *watchers.Definition, runID string) (api.UndoResponse, error) {
	if runID == "" {
		id, err := r.lastUndoable(def.ID)
		if err != nil {
			return api.UndoResponse{}, err
		}
		runID = id
	}
	if err := ValidRunID(runID); err != nil {
		return api.UndoResponse{}, err
	}
	dir := r.runDir(def.ID, runID)
	r.mu.Lock()
	live := r.runs[runID] != nil
	r.mu.Unlock()
	if live {
		return api.UndoResponse{}, fmt.Errorf("run %s of %s is still going; wait for it to end (or stop it) before undoing it", runID, def.Name)
	}
	l, err := loadRunLedger(dir)
	if errors.Is(err, os.ErrNotExist) {
		return api.UndoResponse{}, fmt.Errorf("nothing to undo for run %s of %s: it changed nothing, was undone already, or does not exist (see `tend history %s`)", runID, def.Name, def.Name)
	}
	if err != nil {
		return api.UndoResponse{}, fmt.Errorf("run %s of %s has no ledger to undo: %w", runID, def.Name, err)
	}
	rep, err := sandbox.Undo(def.Path, l, sandbox.Options{Trash: r.cfg.Trash, BackupDir: dir, Now: r.cfg.Clock.Now,
		AllowHardLinks: def.AllowHardLinks})
	resp := api.UndoResponse{RunID: runID, Restored: rep.Restored, Conflicts: rep.Conflicts, Notes: rep.Notes, Touched: l.Touched(), NotUndone: l.Unresolved}
	hist := r.history(def.ID)
	if err != nil && len(rep.Conflicts) > 0 {
		// Clients may only show the error: it names what differs.
		err = fmt.Errorf("%w:\n  %s", err, strings.Join(rep.Conflicts, "\n  "))
	}
	if err != nil {
		hist.Append(dispatch.Record{Type: dispatch.RecUndo, RunID: runID, Outcome: "refused", Reason: err.Error()})
		return resp, err
	}
	reason := fmt.Sprintf("%d change(s) reversed", len(rep.Restored))
	if len(rep.Notes) > 0 {
		reason += "; " + strings.Join(rep.Notes, "; ")
	}
	hist.Append(dispatch.Record{Type: dispatch.RecUndo, RunID: runID, Outcome: "undone", Reason: reason})
	// Mark it so a second undo does not try again.
	os.Rename(filepath.Join(dir, "ledger.json"), filepath.Join(dir, "ledger.undone.json"))
	os.Rename(filepath.Join(dir, sandbox.JournalFile), filepath.Join(dir, "journal.undone.jsonl"))
	return resp, nil
}

// loadRunLedger reads a run's ledger: the one saved after each pass
// (ledger.json), or the write-ahead journal when it knows more steps (the
// save after the last pass did not happen).
func loadRunLedger(dir string) (*sandbox.Ledger, error) {
	l, err := sandbox.LoadLedger(filepath.Join(dir, "ledger.json"))
	jl, _, _, jerr := sandbox.LoadJournal(filepath.Join(dir, sandbox.JournalFile))
	if jerr != nil {
		return l, err
	}
	if err == nil && len(jl.Snapshot()) <= len(l.Snapshot()) {
		return l, nil
	}
	if err == nil {
		jl.Unresolved = l.Unresolved
	}
	return jl, nil
}

// runIDPattern is the form of the run ids the daemon makes: the UTC start
// time and 8 hex digits.
var runIDPattern = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$`)

// ValidRunID refuses anything that is not a run id: a run id names a
// folder under the watcher's runs, so "../x" would load any ledger.json.
func ValidRunID(id string) error {
	if !runIDPattern.MatchString(id) {
		return fmt.Errorf("%q is not a run id: run ids look like 20260302T090000Z-1a2b3c4d (see `tend history` for the runs of a watcher)", id)
	}
	return nil
}

func (r *Runner) lastUndoable(watcherID string) (string, error) {
	base := filepath.Join(r.cfg.Home.Runs(), watcherID)
	ents, err := os.ReadDir(base)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	var ids []string
	for _, e := range ents {
		if ValidRunID(e.Name()) != nil {
			continue
		}
		r.mu.Lock()
		live := r.runs[e.Name()] != nil
		r.mu.Unlock()
		if e.IsDir() && !live {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids) // run ids start with a UTC timestamp
	for i := len(ids) - 1; i >= 0; i-- {
		l, err := loadRunLedger(filepath.Join(base, ids[i]))
		if err == nil && len(l.Snapshot()) > 0 && !l.DryRun() {
			return ids[i], nil
		}
	}
	return "", fmt.Errorf("nothing to undo: no run of this watcher changed anything (or it was undone already)")
}

// RunView is one run as the API returns it.
type RunView struct {
	ID      string            `json:"id"`
	Start   *dispatch.Record  `json:"start,omitempty"`
	End     *dispatch.Record  `json:"end,omitempty"`
	Records []dispatch.Record `json:"records"`
}

// History returns the watcher's session, newest run first.
func (r *Runner) History(def *watchers.Definition) (json.RawMessage, error) {
	runs, err := dispatch.ReadHistory(r.history(def.ID).Path())
	if err != nil {
		return nil, err
	}
	out := make([]RunView, 0, len(runs))
	for i := len(runs) - 1; i >= 0; i-- {
		ru := runs[i]
		out = append(out, RunView{ID: ru.ID, Start: ru.Start, End: ru.End, Records: ru.Records})
	}
	return json.Marshal(out)
}
