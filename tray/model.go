package tray

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tend-agent/tend/watchers"
)

// Overall is the state the icon shows.
type Overall string

const (
	Watching Overall = "watching"
	Running  Overall = "running"
	Paused   Overall = "paused"
	Failing  Overall = "error"
)

// Kind is what a menu item does when clicked.
type Kind int

const (
	None Kind = iota
	RunNow
	Pause
	Resume
	ResumeReset
	OpenFolder
	OpenHistory
	PauseAll
	ResumeAll
	Panic
	OpenViewer
	Quit
)

var kindNames = map[Kind]string{
	None: "none", RunNow: "run", Pause: "pause", Resume: "resume", ResumeReset: "resume-reset",
	OpenFolder: "open-folder", OpenHistory: "open-history", PauseAll: "pause-all",
	ResumeAll: "resume-all", Panic: "panic", OpenViewer: "open-viewer", Quit: "quit",
}

func (k Kind) String() string { return kindNames[k] }

// Action is a click's meaning: the kind and, for a watcher's items, which
// watcher (by id; name and path ride along for messages and folders).
type Action struct {
	Kind Kind
	ID   string
	Name string
	Path string
}

// Item is one menu line.
type Item struct {
	Label   string
	Tooltip string
	Enabled bool
	Action  Action
}

// Entry is one watcher's line and its submenu (always SubItems long, so a
// pooled native slot can be reused for any watcher).
type Entry struct {
	ID   string
	Item Item
	Sub  []Item
}

// SubItems is the length of every watcher's submenu.
const SubItems = 4

// Menu is the whole menu: a status header, the watchers sorted by name, a
// separator and the global items. Tooltip and State drive the icon.
type Menu struct {
	State    Overall
	Tooltip  string
	Header   Item
	Watchers []Entry
	Global   []Item
}

// Watcher is what the menu knows of one watcher.
type Watcher struct {
	ID   string
	Name string
	Path string // empty: a template, or not listed yet
	// Template: a definition without a folder (nothing runs).
	Template bool
	Phase    watchers.Phase
	Badge    string
	Reason   string
}

// Snapshot is everything a menu is built from.
type Snapshot struct {
	Connected  bool   // the daemon answers and the event stream is followed
	Problem    string // why not, when not connected
	Viewer     bool   // a history viewer URL can be had
	OpenFolder bool   // folders can be opened on this desktop
	Watchers   []Watcher
}

func badgeOf(w Watcher) string {
	if w.Template {
		return "Template"
	}
	if w.Badge != "" {
		return w.Badge
	}
	return w.Phase.Badge()
}

func stopped(p watchers.Phase) bool { return p == watchers.PhasePaused || p == watchers.PhaseExhausted }

// OverallState sums the watchers up for the icon: any error wins, then
// any run going, then all stopped means paused; otherwise watching. A
// daemon that does not answer is an error.
func OverallState(s Snapshot) Overall {
	if !s.Connected {
		return Failing
	}
	running, paused, active := false, 0, 0
	for _, w := range s.Watchers {
		if w.Template {
			continue
		}
		active++
		switch badgeOf(w) {
		case "Error":
			return Failing
		case "Running":
			running = true
		case "Paused", "Exhausted":
			paused++
		}
	}
	switch {
	case running:
		return Running
	case active > 0 && paused == active:
		return Paused
	}
	return Watching
}

// Build turns a snapshot into the menu.
func Build(s Snapshot) Menu {
	ws := append([]Watcher(nil), s.Watchers...)
	sort.Slice(ws, func(i, j int) bool {
		if ws[i].Name != ws[j].Name {
			return ws[i].Name < ws[j].Name
		}
		return ws[i].ID < ws[j].ID
	})
	m := Menu{State: OverallState(s), Tooltip: tooltip(s, ws)}
	m.Header = Item{Label: m.Tooltip}
	anyStopped, anyActive := false, false
	for _, w := range ws {
		m.Watchers = append(m.Watchers, entry(s, w))
		if w.Template {
			continue
		}
		if stopped(w.Phase) || w.Phase == watchers.PhaseError {
			anyStopped = true
		}
		if !stopped(w.Phase) {
			anyActive = true
		}
	}
	c := s.Connected
	m.Global = []Item{
		{Label: "Pause all", Enabled: c && anyActive, Action: Action{Kind: PauseAll}},
		{Label: "Resume all", Enabled: c && anyStopped, Action: Action{Kind: ResumeAll}},
		{Label: "Panic: pause all and stop runs", Enabled: c && len(ws) > 0, Action: Action{Kind: Panic}},
		{Label: "Open history viewer", Enabled: c && s.Viewer, Action: Action{Kind: OpenViewer}},
		{Label: "Quit", Enabled: true, Action: Action{Kind: Quit}},
	}
	return m
}

// EntryLabel is a watcher's line, e.g. "inbox — Watching".
func EntryLabel(w Watcher) string { return w.Name + " — " + badgeOf(w) }

func entry(s Snapshot, w Watcher) Entry {
	act := func(k Kind) Action { return Action{Kind: k, ID: w.ID, Name: w.Name, Path: w.Path} }
	live := s.Connected && !w.Template
	toggle := Item{Label: "Pause", Enabled: live, Action: act(Pause)}
	switch w.Phase {
	case watchers.PhasePaused, watchers.PhaseError:
		toggle = Item{Label: "Resume", Enabled: live, Action: act(Resume)}
	case watchers.PhaseExhausted:
		toggle = Item{Label: "Resume (reset fire count)", Enabled: live, Action: act(ResumeReset)}
	}
	tip := w.Path
	if w.Reason != "" {
		tip = strings.TrimSpace(tip + "\n" + w.Reason)
	}
	return Entry{
		ID:   w.ID,
		Item: Item{Label: EntryLabel(w), Tooltip: tip, Enabled: true},
		Sub: []Item{
			{Label: "Run now", Enabled: live && badgeOf(w) != "Running", Action: act(RunNow)},
			toggle,
			{Label: "Open folder", Enabled: w.Path != "" && s.OpenFolder, Action: act(OpenFolder)},
			{Label: "Open history", Enabled: s.Connected && s.Viewer, Action: act(OpenHistory)},
		},
	}
}

func tooltip(s Snapshot, ws []Watcher) string {
	if !s.Connected {
		if s.Problem != "" {
			return "tend: daemon not answering (" + s.Problem + "); retrying"
		}
		return "tend: connecting to the daemon…"
	}
	if len(ws) == 0 {
		return "tend: no watchers yet (add one with `tend add PATH`)"
	}
	counts := map[string]int{}
	for _, w := range ws {
		counts[badgeOf(w)]++
	}
	var parts []string
	for _, b := range []string{"Watching", "Running", "Paused", "Exhausted", "Error", "Template"} {
		if n := counts[b]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ToLower(b)))
		}
	}
	return "tend: " + strings.Join(parts, ", ")
}
