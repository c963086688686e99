package tray

import (
	"strings"
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/watchers"
)

func w(name string, p watchers.Phase) Watcher {
	return Watcher{ID: "id-" + name, Name: name, Path: "/f/" + name, Phase: p, Badge: p.Badge()}
}

func TestOverallState(t *testing.T) {
	tmpl := Watcher{ID: "t", Name: "tmpl", Phase: watchers.PhasePaused, Template: true}
	cases := []struct {
		name string
		snap Snapshot
		want Overall
	}{
		{"disconnected", Snapshot{}, Failing},
		{"no watchers", Snapshot{Connected: true}, Watching},
		{"idle", Snapshot{Connected: true, Watchers: []Watcher{w("a", watchers.PhaseIdle), w("b", watchers.PhaseDebouncing)}}, Watching},
		{"one running", Snapshot{Connected: true, Watchers: []Watcher{w("a", watchers.PhaseIdle), w("b", watchers.PhaseSettling)}}, Running},
		{"error beats running", Snapshot{Connected: true, Watchers: []Watcher{w("a", watchers.PhaseError), w("b", watchers.PhaseProcessing)}}, Failing},
		{"all paused", Snapshot{Connected: true, Watchers: []Watcher{w("a", watchers.PhasePaused), w("b", watchers.PhaseExhausted)}}, Paused},
		{"some paused", Snapshot{Connected: true, Watchers: []Watcher{w("a", watchers.PhasePaused), w("b", watchers.PhaseIdle)}}, Watching},
		{"templates do not count", Snapshot{Connected: true, Watchers: []Watcher{w("a", watchers.PhaseIdle), tmpl}}, Watching},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := OverallState(c.snap); got != c.want {
				t.Errorf("OverallState = %s, want %s", got, c.want)
			}
		})
	}
}

// line renders an item for comparison: label, then "(off)" when disabled
// and the action kind.
func line(it Item) string {
	s := it.Label + " [" + it.Action.Kind.String()
	if !it.Enabled {
		s += " off"
	}
	return s + "]"
}

func lines(items []Item) string {
	var out []string
	for _, it := range items {
		out = append(out, line(it))
	}
	return strings.Join(out, " | ")
}

func TestBuildWatcherEntries(t *testing.T) {
	cases := []struct {
		name  string
		snap  Snapshot
		label string
		sub   string
	}{
		{"watching", Snapshot{Connected: true, Viewer: true, OpenFolder: true, Watchers: []Watcher{w("inbox", watchers.PhaseIdle)}},
			"inbox — Watching", "Run now [run] | Pause [pause] | Open folder [open-folder] | Open history [open-history]"},
		{"running cannot run again", Snapshot{Connected: true, Viewer: true, OpenFolder: true, Watchers: []Watcher{w("inbox", watchers.PhaseProcessing)}},
			"inbox — Running", "Run now [run off] | Pause [pause] | Open folder [open-folder] | Open history [open-history]"},
		{"paused offers resume", Snapshot{Connected: true, Viewer: true, OpenFolder: true, Watchers: []Watcher{w("inbox", watchers.PhasePaused)}},
			"inbox — Paused", "Run now [run] | Resume [resume] | Open folder [open-folder] | Open history [open-history]"},
		{"error offers resume", Snapshot{Connected: true, Watchers: []Watcher{w("inbox", watchers.PhaseError)}},
			"inbox — Error", "Run now [run] | Resume [resume] | Open folder [open-folder off] | Open history [open-history off]"},
		{"exhausted resets", Snapshot{Connected: true, Viewer: true, Watchers: []Watcher{w("inbox", watchers.PhaseExhausted)}},
			"inbox — Exhausted", "Run now [run] | Resume (reset fire count) [resume-reset] | Open folder [open-folder off] | Open history [open-history]"},
		{"template", Snapshot{Connected: true, Viewer: true, OpenFolder: true, Watchers: []Watcher{{ID: "t", Name: "tmpl", Phase: watchers.PhasePaused, Template: true}}},
			"tmpl — Template", "Run now [run off] | Resume [resume off] | Open folder [open-folder off] | Open history [open-history]"},
		{"disconnected", Snapshot{Viewer: true, OpenFolder: true, Watchers: []Watcher{w("inbox", watchers.PhaseIdle)}},
			"inbox — Watching", "Run now [run off] | Pause [pause off] | Open folder [open-folder] | Open history [open-history off]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := Build(c.snap)
			if len(m.Watchers) != 1 {
				t.Fatalf("got %d entries", len(m.Watchers))
			}
			e := m.Watchers[0]
			if e.Item.Label != c.label {
				t.Errorf("label %q, want %q", e.Item.Label, c.label)
			}
			if len(e.Sub) != SubItems {
				t.Errorf("submenu has %d items, want %d", len(e.Sub), SubItems)
			}
			if got := lines(e.Sub); got != c.sub {
				t.Errorf("submenu\n got %s\nwant %s", got, c.sub)
			}
			for _, it := range e.Sub {
				if it.Action.ID != c.snap.Watchers[0].ID {
					t.Errorf("%s acts on %q", it.Label, it.Action.ID)
				}
			}
		})
	}
}

func TestBuildGlobalAndOrder(t *testing.T) {
	cases := []struct {
		name   string
		snap   Snapshot
		header string
		global string
	}{
		{"disconnected", Snapshot{Problem: "no tend daemon is running"},
			"tend: daemon not answering (no tend daemon is running); retrying",
			"Pause all [pause-all off] | Resume all [resume-all off] | Panic: pause all and stop runs [panic off] | Open history viewer [open-viewer off] | Quit [quit]"},
		{"empty", Snapshot{Connected: true, Viewer: true},
			"tend: no watchers yet (add one with `tend add PATH`)",
			"Pause all [pause-all off] | Resume all [resume-all off] | Panic: pause all and stop runs [panic off] | Open history viewer [open-viewer] | Quit [quit]"},
		{"mixed", Snapshot{Connected: true, Watchers: []Watcher{w("zeta", watchers.PhasePaused), w("alpha", watchers.PhaseIdle), w("mid", watchers.PhaseProcessing)}},
			"tend: 1 watching, 1 running, 1 paused",
			"Pause all [pause-all] | Resume all [resume-all] | Panic: pause all and stop runs [panic] | Open history viewer [open-viewer off] | Quit [quit]"},
		{"all paused", Snapshot{Connected: true, Watchers: []Watcher{w("a", watchers.PhasePaused)}},
			"tend: 1 paused",
			"Pause all [pause-all off] | Resume all [resume-all] | Panic: pause all and stop runs [panic] | Open history viewer [open-viewer off] | Quit [quit]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := Build(c.snap)
			if m.Header.Label != c.header || m.Header.Enabled {
				t.Errorf("header %q (enabled %v), want %q disabled", m.Header.Label, m.Header.Enabled, c.header)
			}
			if m.Tooltip != c.header {
				t.Errorf("tooltip %q, want %q", m.Tooltip, c.header)
			}
			if got := lines(m.Global); got != c.global {
				t.Errorf("global\n got %s\nwant %s", got, c.global)
			}
		})
	}
	m := Build(cases[2].snap)
	var names []string
	for _, e := range m.Watchers {
		names = append(names, e.Item.Label)
	}
	if got := strings.Join(names, ", "); got != "alpha — Watching, mid — Running, zeta — Paused" {
		t.Errorf("order: %s", got)
	}
}

func TestStateApply(t *testing.T) {
	st := newState()
	st.replace([]api.View{{
		Definition: watchers.Definition{ID: "1", Name: "inbox", Path: "/in"},
		State:      watchers.State{Phase: watchers.PhaseIdle},
		Badge:      "Watching",
	}})
	steps := []struct {
		ev     api.Event
		relist bool
		want   string // labels after, sorted
	}{
		{api.Event{ID: "1", Name: "inbox", Status: watchers.PhasePaused, Badge: "Paused"}, false, "inbox — Paused"},
		{api.Event{ID: "2", Name: "notes", Status: watchers.PhaseIdle, Badge: "Watching"}, true, "inbox — Paused, notes — Watching"},
		{api.Event{ID: "1", Name: "inbox", Status: watchers.PhaseProcessing, Badge: "Running"}, false, "inbox — Running, notes — Watching"},
		{api.Event{ID: "2", Removed: true}, false, "inbox — Running"},
	}
	for i, s := range steps {
		if got := st.apply(s.ev); got != s.relist {
			t.Errorf("step %d: relist %v, want %v", i, got, s.relist)
		}
		st.connected = true
		var labels []string
		for _, e := range Build(st.snapshot()).Watchers {
			labels = append(labels, e.Item.Label)
		}
		if got := strings.Join(labels, ", "); got != s.want {
			t.Errorf("step %d: %s, want %s", i, got, s.want)
		}
	}
	if st.byID["1"].Path != "/in" {
		t.Errorf("an event lost the folder: %+v", st.byID["1"])
	}
}

func TestHistoryURL(t *testing.T) {
	cases := []struct{ in, name, want string }{
		{"http://127.0.0.1:7433/?token=abc", "inbox", "http://127.0.0.1:7433/?token=abc#/w/inbox"},
		{"http://127.0.0.1:7433/#/", "notes", "http://127.0.0.1:7433/#/w/notes"},
	}
	for _, c := range cases {
		if got := HistoryURL(c.in, c.name); got != c.want {
			t.Errorf("HistoryURL(%q, %q) = %q, want %q", c.in, c.name, got, c.want)
		}
	}
}
