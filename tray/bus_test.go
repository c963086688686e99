//go:build linux

package tray

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/tend-agent/tend/daemon/daemontest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/watchers"
)

// fakeRunner is a model side that finishes every pass at once.
type fakeRunner struct{}

func (fakeRunner) Pass(ctx context.Context, req watchers.PassRequest) watchers.PassResult {
	return watchers.PassResult{Outcome: "done"}
}
func (fakeRunner) Finish(ctx context.Context, sum watchers.RunSummary) {}
func (fakeRunner) Undo(ctx context.Context, def *watchers.Definition, runID string) (api.UndoResponse, error) {
	return api.UndoResponse{RunID: runID}, nil
}
func (fakeRunner) History(def *watchers.Definition) (json.RawMessage, error) {
	return json.RawMessage("[]"), nil
}

// snHost is a StatusNotifierWatcher: what a desktop panel exports so tray
// items can register.
type snHost struct {
	mu    sync.Mutex
	items []string // "sender path"
}

func (h *snHost) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	h.mu.Lock()
	h.items = append(h.items, string(sender)+" "+service)
	h.mu.Unlock()
	return nil
}

func (h *snHost) RegisterStatusNotifierHost(service string) *dbus.Error { return nil }

func (h *snHost) registered() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.items...)
}

// node is one dbusmenu item as read back over the bus.
type node struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []node
}

func (n node) label() string {
	s, _ := n.Props["label"].Value().(string)
	return s
}

func (n node) visible() bool {
	v, ok := n.Props["visible"].Value().(bool)
	return !ok || v
}

func (n node) enabled() bool {
	v, ok := n.Props["enabled"].Value().(bool)
	return !ok || v
}

func toNode(v any) (node, error) {
	parts, ok := v.([]any)
	if !ok || len(parts) != 3 {
		return node{}, fmt.Errorf("menu layout item is %T, want (ia{sv}av)", v)
	}
	n := node{}
	n.ID, _ = parts[0].(int32)
	n.Props, _ = parts[1].(map[string]dbus.Variant)
	kids, _ := parts[2].([]dbus.Variant)
	for _, k := range kids {
		c, err := toNode(k.Value())
		if err != nil {
			return node{}, err
		}
		n.Children = append(n.Children, c)
	}
	return n, nil
}

// menuLines is the visible top level as "label" lines, for messages.
func menuLines(root node) []string {
	var out []string
	for _, c := range root.Children {
		if !c.visible() {
			continue
		}
		if t, _ := c.Props["type"].Value().(string); t == "separator" {
			out = append(out, "---")
			continue
		}
		out = append(out, c.label())
	}
	return out
}

func find(root node, label string) (node, bool) {
	for _, c := range root.Children {
		if c.visible() && c.label() == label {
			return c, true
		}
	}
	return node{}, false
}

// waitFor polls cond every few ms until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		ok, detail := cond()
		if ok {
			return
		}
		last = detail
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; last seen: %s", what, last)
}

// startDaemon runs a real daemon on h until the returned stop is called.
func startDaemon(t *testing.T, h home.Home) (stop func()) {
	t.Helper()
	_, stop = daemontest.Start(t, daemon.Config{Home: h, Runner: fakeRunner{}, HTTPAddr: ""})
	return stop
}

// TestTrayOnSessionBus drives the real tray over a real session bus: a
// StatusNotifierWatcher sees it register, its dbusmenu lists the daemon's
// watchers with their badges, a "clicked" on Pause reaches the daemon and
// the label follows, and a daemon restart is followed.
func TestTrayOnSessionBus(t *testing.T) {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		t.Skip("no D-Bus session bus: run under one, e.g. `dbus-run-session -- go test ./tray/`")
	}
	if ran.Load() {
		t.Skip("fyne.io/systray starts once per process and the tray already ran here (-count > 1)")
	}
	h := home.Home{Dir: filepath.Join(t.TempDir(), "h")}
	stopDaemon := startDaemon(t, h)
	defer func() { stopDaemon() }()
	c := api.NewClient(h.Socket())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, name := range []string{"alpha", "beta"} {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		def := watchers.Definition{Name: name, Path: dir, Instructions: "keep it tidy", Enabled: true, Recursive: true}
		if _, err := c.Add(ctx, api.AddRequest{Definition: def}); err != nil {
			t.Fatalf("adding %s: %v", name, err)
		}
	}

	// Be the panel: own the StatusNotifierWatcher name on a connection of
	// our own.
	bus, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("connecting to the session bus: %v", err)
	}
	defer bus.Close()
	host := &snHost{}
	if err := bus.Export(host, "/StatusNotifierWatcher", watcherName); err != nil {
		t.Fatal(err)
	}
	if r, err := bus.RequestName(watcherName, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning %s: reply %v, %v", watcherName, r, err)
	}

	trayCtx, stopTray := context.WithCancel(context.Background())
	trayDone := make(chan error, 1)
	go func() {
		trayDone <- Run(trayCtx, c, Options{OpenFolder: func(string) error { return nil }})
	}()
	defer func() {
		stopTray()
		select {
		case err := <-trayDone:
			if err != nil {
				t.Errorf("tray: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("tray did not stop")
		}
	}()

	var sender, itemPath string
	waitFor(t, "the item to register", func() (bool, string) {
		r := host.registered()
		if len(r) == 0 {
			return false, "nothing registered"
		}
		sender, itemPath, _ = strings.Cut(r[0], " ")
		return true, ""
	})
	item := bus.Object(sender, dbus.ObjectPath(itemPath))
	mp, err := item.GetProperty("org.kde.StatusNotifierItem.Menu")
	if err != nil {
		t.Fatalf("reading the item's Menu property: %v", err)
	}
	menuPath, _ := mp.Value().(dbus.ObjectPath)
	if id, err := item.GetProperty("org.kde.StatusNotifierItem.Id"); err != nil || id.Value() != "tend" {
		t.Errorf("item Id = %v (%v), want tend", id, err)
	}
	menu := bus.Object(sender, menuPath)
	layout := func() (node, error) {
		var rev uint32
		var raw struct {
			V0 int32
			V1 map[string]dbus.Variant
			V2 []dbus.Variant
		}
		if err := menu.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &raw); err != nil {
			return node{}, err
		}
		return toNode([]any{raw.V0, raw.V1, raw.V2})
	}
	hasLabels := func(labels ...string) func() (bool, string) {
		return func() (bool, string) {
			root, err := layout()
			if err != nil {
				return false, err.Error()
			}
			for _, l := range labels {
				if _, ok := find(root, l); !ok {
					return false, strings.Join(menuLines(root), " | ")
				}
			}
			return true, ""
		}
	}
	// fyne.io/systray's first GetLayout answers one level deep and
	// schedules a refresh that writes the menu revision without the lock
	// GetLayout reads it under (a data race inside v1.12.2). Let the menu
	// settle (the tooltip comes last in a render), make that first call,
	// and wait for its refresh to bump the revision before asking again.
	waitFor(t, "the tooltip to count both watchers", func() (bool, string) {
		tip, err := item.GetProperty("org.kde.StatusNotifierItem.ToolTip")
		if err != nil {
			return false, err.Error()
		}
		parts, _ := tip.Value().([]any)
		if len(parts) != 4 {
			return false, fmt.Sprintf("%#v", tip.Value())
		}
		return parts[2] == "tend: 2 watching", fmt.Sprint(parts[2])
	})
	version := func() uint32 {
		v, err := menu.GetProperty("com.canonical.dbusmenu.Version")
		if err != nil {
			t.Fatalf("reading the menu Version: %v", err)
		}
		n, _ := v.Value().(uint32)
		return n
	}
	if _, err := layout(); err != nil {
		t.Fatalf("GetLayout: %v", err)
	}
	v1 := version()
	waitFor(t, "the first GetLayout's refresh", func() (bool, string) {
		v := version()
		return v > v1, fmt.Sprint(v)
	})
	waitFor(t, "both watchers in the menu", hasLabels("alpha — Watching", "beta — Watching", "Pause all", "Resume all", "Quit"))
	root, _ := layout()
	t.Logf("menu: %s", strings.Join(menuLines(root), " | "))

	// Click "Pause" in alpha's submenu, as a panel would.
	var pauseID int32 = -1
	waitFor(t, "alpha's submenu", func() (bool, string) {
		root, err := layout()
		if err != nil {
			return false, err.Error()
		}
		a, _ := find(root, "alpha — Watching")
		for _, s := range a.Children {
			if s.label() == "Pause" && s.enabled() {
				pauseID = s.ID
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d children", len(a.Children))
	})
	if err := menu.Call("com.canonical.dbusmenu.Event", 0, pauseID, "clicked", dbus.MakeVariant(""), uint32(0)).Err; err != nil {
		t.Fatalf("sending clicked: %v", err)
	}
	waitFor(t, "the daemon to pause alpha", func() (bool, string) {
		v, err := c.Get(ctx, "alpha")
		if err != nil {
			return false, err.Error()
		}
		return v.State.Phase == watchers.PhasePaused, string(v.State.Phase)
	})
	if v, _ := c.Get(ctx, "beta"); v.State.Phase == watchers.PhasePaused {
		t.Errorf("beta was paused too")
	}
	waitFor(t, "the label to show Paused", hasLabels("alpha — Paused", "beta — Watching"))

	// The daemon restarts: the tray says so, then follows the new one.
	stopDaemon()
	waitFor(t, "the tray to notice the daemon left", func() (bool, string) {
		root, err := layout()
		if err != nil {
			return false, err.Error()
		}
		lines := menuLines(root)
		return len(lines) > 0 && strings.Contains(lines[0], "daemon not answering"), strings.Join(lines, " | ")
	})
	stopDaemon = startDaemon(t, h)
	waitFor(t, "the tray to reconnect", hasLabels("tend: 1 watching, 1 paused", "alpha — Paused", "beta — Watching"))
}
