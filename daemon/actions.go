package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/internal/mergepatch"
	"github.com/tend-agent/tend/watchers"
)

// userError is a problem with the request, answered with 400 and shown to
// the person as it is.
type userError struct{ msg string }

func (e *userError) Error() string { return e.msg }

func userErrorf(format string, a ...any) error { return &userError{fmt.Sprintf(format, a...)} }

// checkFolder verifies a watcher's folder on add and edit.
func checkFolder(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", userErrorf("invalid path %q: %v", p, err)
	}
	fi, err := os.Stat(abs)
	if os.IsNotExist(err) {
		return "", userErrorf("folder %s does not exist: create it first or check the path", abs)
	}
	if err != nil {
		return "", userErrorf("cannot read %s: %v", abs, err)
	}
	if !fi.IsDir() {
		return "", userErrorf("%s is not a folder: a watcher watches a folder", abs)
	}
	return filepath.Clean(abs), nil
}

func (d *Daemon) find(ref string) (*watchers.Definition, error) {
	def, err := watchers.Find(d.defs, ref)
	if err != nil {
		return nil, &userError{err.Error()}
	}
	return def, nil
}

func (d *Daemon) nameTaken(name, exceptID string) bool {
	for _, o := range d.defs {
		if o.Name == name && o.ID != exceptID {
			return true
		}
	}
	return false
}

func (d *Daemon) add(ctx context.Context, def watchers.Definition) (*watchers.Definition, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reconcileLocked(ctx)
	p, err := checkFolder(def.Path)
	if err != nil {
		return nil, err
	}
	def.Path = p
	if err := d.cfg.Home.RefuseFolder(p); err != nil {
		return nil, &userError{err.Error()}
	}
	if d.nameTaken(def.Name, "") {
		return nil, userErrorf("a watcher named %q already exists: choose another --name", def.Name)
	}
	now := d.cfg.Clock.Now().UTC().Truncate(time.Second)
	def.ID = uuid.NewString()
	def.CreatedAt, def.UpdatedAt = now, now
	if err := d.copyCheckScript(&def); err != nil {
		return nil, err
	}
	out, err := d.commit(ctx, &def, d.checkOverlap, checkNeedsSchedule)
	if err != nil {
		d.removeScripts(def.ID)
	}
	return out, err
}

// commit validates a definition, runs the checks that only add and edit
// make, then writes it and applies it. d.mu is held.
func (d *Daemon) commit(ctx context.Context, def *watchers.Definition, checks ...func(*watchers.Definition) error) (*watchers.Definition, error) {
	def.ApplyDefaults()
	if err := def.Validate(); err != nil {
		return nil, &userError{err.Error()}
	}
	if err := d.validateTriggers(def); err != nil {
		return nil, err
	}
	for _, check := range checks {
		if err := check(def); err != nil {
			return nil, err
		}
	}
	if err := d.store.Save(def); err != nil {
		return nil, err
	}
	d.reconcileLocked(ctx)
	return def, nil
}

func (d *Daemon) validateTriggers(def *watchers.Definition) error {
	if d.cfg.Triggers == nil {
		return nil
	}
	t, err := d.cfg.Triggers(def)
	if err != nil {
		return &userError{err.Error()}
	}
	if t != nil {
		t.Close()
	}
	return nil
}

// edit applies a JSON merge patch (RFC 7386) to a definition: objects
// merge at every depth, null removes a key, anything else replaces it.
// id and createdAt stay. The whole read-modify-write holds d.mu and reads
// the file as it is on disk, so no edit, from the API or by hand, is lost
// to another.
func (d *Daemon) edit(ctx context.Context, ref string, patch map[string]any) (*watchers.Definition, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	known, err := d.find(ref)
	if err != nil {
		return nil, err
	}
	// The file may have been edited by hand since the last reconcile.
	old, err := watchers.LoadFile(d.store.FilePath(known.ID))
	if err != nil {
		return nil, userErrorf("cannot change %s: %v", known.Name, err)
	}
	def := *old
	if err := mergepatch.Into(&def, patch); err != nil {
		return nil, userErrorf("invalid change: %v", err)
	}
	def.ID, def.CreatedAt = old.ID, old.CreatedAt
	if def.Path, err = checkFolder(def.Path); err != nil {
		return nil, err
	}
	if err := d.cfg.Home.RefuseFolder(def.Path); err != nil {
		return nil, &userError{err.Error()}
	}
	if d.nameTaken(def.Name, def.ID) {
		return nil, userErrorf("a watcher named %q already exists", def.Name)
	}
	var checks []func(*watchers.Definition) error
	// Pairs that share a folder already (by hand, or from before the
	// rule) are left alone until the edit moves one or drops the consent.
	if def.Path != old.Path || (old.AllowOverlap && !def.AllowOverlap) {
		checks = append(checks, d.checkOverlap)
	}
	if hasKey(patch, "check") || hasKey(patch, "schedule") {
		checks = append(checks, checkNeedsSchedule)
	}
	def.UpdatedAt = d.cfg.Clock.Now().UTC().Truncate(time.Second)
	if hasKey(patch, "check") {
		// a fresh copy of a script in the folder (see copyCheckScript)
		if err := d.copyCheckScript(&def); err != nil {
			return nil, err
		}
	}
	return d.commit(ctx, &def, checks...)
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// checkOverlap refuses a second watcher on a folder that another one
// watches: each would wake on the other's changes. Nested folders are
// fine (the outer one leaves the inner one's subtree alone); the same
// folder needs allowOverlap. d.mu is held.
func (d *Daemon) checkOverlap(def *watchers.Definition) error {
	if def.IsTemplate() || def.AllowOverlap {
		return nil
	}
	for _, o := range d.defs {
		if o.ID != def.ID && !o.IsTemplate() && filepath.Clean(o.Path) == filepath.Clean(def.Path) {
			return userErrorf("%s is already watched by %s: two watchers on one folder each wake on the other's changes; "+
				"choose another folder, change %s instead (`tend edit %s`), or give --allow-overlap if both should watch it",
				def.Path, o.Name, o.Name, o.Name)
		}
	}
	return nil
}

// checkNeedsSchedule refuses a check without a schedule on add and edit.
// A hand-written file with one still loads and, as before, runs its check
// every 5 minutes: refusing it would stop a watcher that works.
func checkNeedsSchedule(def *watchers.Definition) error {
	if def.Check != "" && def.Schedule == "" {
		return userErrorf("a check runs on a schedule, and %s has none: add --schedule (e.g. --schedule 'every 5m' or 'daily 09:00')", def.Name)
	}
	return nil
}

func (d *Daemon) remove(ctx context.Context, ref string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	def, err := d.find(ref)
	if err != nil {
		return err
	}
	if err := d.store.Remove(def.ID); err != nil {
		return err
	}
	d.reconcileLocked(ctx)
	d.mu.Unlock()
	d.wound(def.ID) // its last state write is done before the files go
	d.mu.Lock()
	watchers.StateFiles{Dir: d.cfg.Home.State(), ID: def.ID}.Remove()
	d.removeScripts(def.ID)
	return nil
}

// setEnabled persists a user pause or resume in the definition file.
func (d *Daemon) setEnabled(ctx context.Context, ref string, on bool) error {
	_, err := d.edit(ctx, ref, map[string]any{"enabled": on})
	return err
}

func (d *Daemon) engine(ref string) (*watchers.Definition, *watchers.Engine, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	def, err := d.find(ref)
	if err != nil {
		return nil, nil, err
	}
	h := d.engines[def.ID]
	if h == nil {
		if def.IsTemplate() {
			return def, nil, userErrorf("%s is a template: attach it to a folder with `tend attach %s PATH`", def.Name, def.Name)
		}
		return def, nil, userErrorf("watcher %s is not running: %s", def.Name, d.problems[def.ID])
	}
	return def, h.eng, nil
}

func (d *Daemon) pause(ctx context.Context, ref string) error {
	if _, eng, err := d.engine(ref); err == nil {
		eng.Pause(ctx, "paused by the user") // cancels a run in flight at once
	}
	return d.setEnabled(ctx, ref, false)
}

// resume lets a watcher run again. With Forget the pending changes are
// dismissed first (the folder as it is becomes the baseline); otherwise
// they are dispatched.
func (d *Daemon) resume(ctx context.Context, ref string, req api.ResumeRequest) error {
	d.mu.Lock()
	def, err := d.find(ref)
	d.mu.Unlock()
	if err != nil {
		return err
	}
	if def.IsTemplate() {
		return userErrorf("%s is a template: it has no folder to resume; attach it with `tend attach %s PATH`", def.Name, def.Name)
	}
	if err := d.refuseExhausted(def, req.Reset); err != nil {
		return err
	}
	if req.Forget {
		_, eng, err := d.engine(ref)
		if err != nil {
			return err
		}
		if err := eng.Forget(ctx); err != nil {
			return err
		}
	}
	if !def.Enabled {
		if err := d.setEnabled(ctx, ref, true); err != nil {
			return err
		}
		if !req.Reset {
			return nil
		}
	}
	_, eng, err := d.engine(ref)
	if err != nil {
		return err
	}
	if err := eng.Resume(ctx, req.Reset); err != nil {
		return &userError{err.Error()}
	}
	return nil
}

// refuseExhausted refuses to resume an exhausted watcher without a reset,
// before anything changes: it would stay exhausted (and, when paused,
// be enabled only to stop at once).
func (d *Daemon) refuseExhausted(def *watchers.Definition, reset bool) error {
	d.stateMu.Lock()
	fires := d.states[def.ID].FireCount
	d.stateMu.Unlock()
	if max := def.Guards.MaxFires; !reset && max > 0 && fires >= max {
		return userErrorf("%s is exhausted: it has run %d times, its maxFires; `tend resume %s --reset` starts the count again", def.Name, fires, def.Name)
	}
	return nil
}

// panic pauses every watcher and cancels every run in flight: first the
// engines at once, then the definitions so it survives a restart.
func (d *Daemon) panicAll(ctx context.Context) error {
	d.mu.Lock()
	engs := make([]*watchers.Engine, 0, len(d.engines))
	for _, h := range d.engines {
		engs = append(engs, h.eng)
	}
	refs := d.refs()
	d.mu.Unlock()
	for _, e := range engs {
		e.Pause(ctx, "paused by tend panic")
	}
	var errs []error
	for _, r := range refs {
		errs = append(errs, d.setEnabled(ctx, r, false))
	}
	return errors.Join(errs...)
}

func (d *Daemon) refs() []string {
	var out []string
	for _, def := range d.defs {
		if !def.IsTemplate() {
			out = append(out, def.ID)
		}
	}
	return out
}

func (d *Daemon) forAll(ctx context.Context, f func(context.Context, string) error) error {
	d.mu.Lock()
	refs := d.refs()
	d.mu.Unlock()
	var errs []error
	for _, r := range refs {
		errs = append(errs, f(ctx, r))
	}
	return errors.Join(errs...)
}

func (d *Daemon) undo(ctx context.Context, ref, runID string) (api.UndoResponse, error) {
	def, eng, err := d.engine(ref)
	if err != nil {
		return api.UndoResponse{}, err
	}
	var resp api.UndoResponse
	err = eng.Rebaseline(ctx, func() ([]string, error) {
		var uerr error
		resp, uerr = d.cfg.Runner.Undo(ctx, def, runID)
		return resp.Touched, uerr
	})
	return resp, err
}
