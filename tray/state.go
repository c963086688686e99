package tray

import (
	"github.com/tend-agent/tend/api"
)

// state is the tray's picture of the daemon, fed by the event stream.
// Only the tray's loop goroutine touches it.
type state struct {
	connected bool
	problem   string
	viewer    bool
	folders   bool
	byID      map[string]Watcher
}

func newState() *state { return &state{byID: map[string]Watcher{}} }

// replace takes a full listing (at connect, or when an unknown watcher
// shows up on the stream).
func (s *state) replace(views []api.View) {
	s.byID = make(map[string]Watcher, len(views))
	for _, v := range views {
		d := v.Definition
		s.byID[d.ID] = Watcher{
			ID: d.ID, Name: d.Name, Path: d.Path, Template: d.Path == "",
			Phase: v.State.Phase, Badge: v.Badge, Reason: v.State.Reason,
		}
	}
}

// apply folds one event in. It reports whether the tray should fetch the
// listing again: the event names a watcher it has not seen, whose folder
// it does not know yet.
func (s *state) apply(ev api.Event) (relist bool) {
	if ev.Removed {
		delete(s.byID, ev.ID)
		return false
	}
	w, ok := s.byID[ev.ID]
	if !ok {
		w = Watcher{ID: ev.ID}
		relist = true
	}
	if ev.Name != "" {
		w.Name = ev.Name
	}
	w.Phase, w.Badge, w.Reason = ev.Status, ev.Badge, ev.Reason
	s.byID[ev.ID] = w
	return relist
}

func (s *state) snapshot() Snapshot {
	snap := Snapshot{Connected: s.connected, Problem: s.problem, Viewer: s.viewer, OpenFolder: s.folders}
	for _, w := range s.byID {
		snap.Watchers = append(snap.Watchers, w)
	}
	return snap
}
