package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tend-agent/tend/watchers"
)

// reconcile brings the running engines in line with the definition files:
// new files start an engine, edited ones restart it, removed ones stop it.
func (d *Daemon) reconcile(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reconcileLocked(ctx)
}

func (d *Daemon) reconcileLocked(ctx context.Context) {
	defs, errs := d.store.LoadAll()
	problems := map[string]string{}
	for _, err := range errs {
		var fe *watchers.FileError
		if errors.As(err, &fe) {
			id := strings.TrimSuffix(filepath.Base(fe.Path), ".json")
			problems[id] = err.Error()
		} else {
			problems["store"] = err.Error()
		}
		if d.problems[idOf(err)] != err.Error() {
			d.log.Error("watcher definition skipped", "err", err)
		}
	}
	d.problems = problems
	d.defs = defs
	excludes := nestedExcludes(defs)
	for _, def := range defs {
		// tend's own files never reach the fingerprint, events or prompts
		if own := d.cfg.Home.Own(def.Path); len(own) > 0 {
			excludes[def.ID] = append(excludes[def.ID], own...)
			sort.Strings(excludes[def.ID])
		}
	}
	want := map[string]*watchers.Definition{}
	for _, def := range defs {
		if !def.IsTemplate() {
			want[def.ID] = def
		}
	}
	for id, h := range d.engines {
		if want[id] == nil {
			d.stopEngine(id, h)
			if msg, bad := problems[id]; bad {
				st := watchers.State{ID: id, Phase: watchers.PhaseError, Reason: msg}
				d.publish(h.def, st)
			} else {
				d.forget(h.def)
			}
		}
	}
	for id, def := range want {
		raw, _ := json.Marshal(def)
		h := d.engines[id]
		if h != nil && h.raw == string(raw) && equalStrings(h.exclude, excludes[id]) {
			continue
		}
		var prev <-chan struct{}
		if h != nil {
			// The old engine keeps its baseline: a re-enabled watcher
			// dispatches what changed while it was paused (unless the user
			// said resume --forget, which moved the baseline first).
			prev = d.stopEngine(id, h)
		}
		d.startEngine(ctx, def, string(raw), excludes[id], prev)
	}
}

func idOf(err error) string {
	var fe *watchers.FileError
	if errors.As(err, &fe) {
		return strings.TrimSuffix(filepath.Base(fe.Path), ".json")
	}
	return "store"
}

// startEngine starts a watcher's engine once prev (the engine it
// replaces, if any) has stopped, so two engines never share its files.
func (d *Daemon) startEngine(ctx context.Context, def *watchers.Definition, raw string, exclude []string, prev <-chan struct{}) {
	if err := d.cfg.Home.RefuseFolder(def.Path); err != nil {
		// A definition written by hand (add and edit refuse these).
		d.log.Error("watcher folder refused", "watcher", def.Name, "err", err)
		d.publish(def, watchers.State{ID: def.ID, Phase: watchers.PhaseError, Reason: err.Error()})
		return
	}
	var trig *watchers.Triggers
	if d.cfg.Triggers != nil {
		t, err := d.cfg.Triggers(def)
		if err != nil {
			d.log.Error("watcher trigger invalid", "watcher", def.Name, "err", err)
			d.publish(def, watchers.State{ID: def.ID, Phase: watchers.PhaseError, Reason: err.Error()})
			return
		}
		trig = t
	}
	ectx, cancel := context.WithCancel(ctx)
	h := &handle{def: def, raw: raw, exclude: exclude, cancel: cancel, done: make(chan struct{})}
	h.eng = watchers.NewEngine(watchers.EngineConfig{
		Def:       def,
		Exclude:   exclude,
		StateDir:  d.cfg.Home.State(),
		Clock:     d.cfg.Clock,
		Log:       d.log,
		Runner:    d.cfg.Runner,
		Slots:     d.slots,
		NewSource: d.cfg.NewSource,
		Publish: func(st watchers.State) {
			if !h.retired.Load() {
				d.publish(def, st)
			}
		},
		NewRunID: d.newRunID,
		Triggers: trig,
		Recover:  d.recoverHook(),
	})
	d.engines[def.ID] = h
	go func() {
		defer close(h.done)
		if prev != nil {
			// prev was cancelled and always ends; waiting for it even when
			// this engine is cancelled too means h.done covers both.
			<-prev
		}
		if ectx.Err() != nil {
			return
		}
		h.eng.Run(ectx)
	}()
}

// stopEngine tells an engine to stop and returns at once: no lock is held
// while a run winds down. The returned channel closes when it has stopped.
func (d *Daemon) stopEngine(id string, h *handle) <-chan struct{} {
	h.retired.Store(true)
	h.cancel()
	delete(d.engines, id)
	d.winding[id] = h.done
	return h.done
}

// wound waits, with d.mu not held, until the engine of id that was last
// stopped has finished.
func (d *Daemon) wound(id string) {
	d.mu.Lock()
	c := d.winding[id]
	d.mu.Unlock()
	if c != nil {
		<-c
	}
}

func (d *Daemon) forget(def *watchers.Definition) {
	d.stateMu.Lock()
	delete(d.states, def.ID)
	d.stateMu.Unlock()
	d.events.publish(eventRemoved(def))
}

// nestedExcludes gives, for each watcher, the subtrees of other enabled
// watchers inside its folder, relative and with correct path boundaries:
// /a/Projects excludes /a/Projects/x, never /a/Projects2.
func nestedExcludes(defs []*watchers.Definition) map[string][]string {
	out := map[string][]string{}
	for _, p := range defs {
		if p.IsTemplate() || !p.Recursive {
			continue
		}
		for _, c := range defs {
			if c == p || c.IsTemplate() || !c.Enabled {
				continue
			}
			if rel, ok := inside(p.Path, c.Path); ok {
				out[p.ID] = append(out[p.ID], rel)
			}
		}
		sort.Strings(out[p.ID])
	}
	return out
}

// inside reports whether child is strictly below parent, and its relative
// slash path.
func inside(parent, child string) (string, bool) {
	parent, child = filepath.Clean(parent), filepath.Clean(child)
	if parent == child {
		return "", false
	}
	rel, err := filepath.Rel(parent, child)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
