//go:build !darwin || cgo

package tray

import (
	"context"
	"runtime"

	"fyne.io/systray"
)

// view holds the native menu items. Native menus cannot reorder, so the
// watcher lines are a pool of slots created up front between the header
// and the separator; a slot is bound to one watcher id while that watcher
// exists, hidden when it goes, and reused for the next new one. When the
// pool is full the whole menu is rebuilt with twice the slots.
type view struct {
	ctx     context.Context
	clicks  chan<- click
	header  *systray.MenuItem
	headerA Item
	slots   []*slot
	ids     map[string]int
	global  []*systray.MenuItem
	globalA []Item
	icon    Overall
	tip     string
}

type slot struct {
	top     *systray.MenuItem
	sub     []*systray.MenuItem
	topA    Item
	subA    []Item
	id      string
	visible bool
}

// click names the item clicked: a global item (global ≥ 0) or a
// watcher's submenu item (slot, sub).
type click struct {
	global, slot, sub int
}

// minSlots is the initial size of the watcher pool.
const minSlots = 8

// fresh is what a just-created native item shows.
var fresh = Item{Enabled: true}

func newView(ctx context.Context, clicks chan<- click, capacity int) *view {
	v := &view{ctx: ctx, clicks: clicks}
	v.build(max(capacity, minSlots))
	return v
}

func (v *view) build(capacity int) {
	v.header = systray.AddMenuItem("tend", "")
	v.header.Disable()
	v.headerA = Item{Label: "tend"}
	v.ids = map[string]int{}
	v.slots = make([]*slot, capacity)
	for i := range v.slots {
		s := &slot{top: systray.AddMenuItem("", ""), topA: fresh}
		s.top.Hide()
		for j := 0; j < SubItems; j++ {
			mi := s.top.AddSubMenuItem("", "")
			s.sub = append(s.sub, mi)
			s.subA = append(s.subA, fresh)
			v.listen(mi, click{global: -1, slot: i, sub: j})
		}
		v.slots[i] = s
	}
	systray.AddSeparator()
	v.global, v.globalA = nil, nil
	for i := 0; i < 5; i++ {
		mi := systray.AddMenuItem("", "")
		v.global = append(v.global, mi)
		v.globalA = append(v.globalA, fresh)
		v.listen(mi, click{global: i})
	}
}

// listen forwards an item's clicks until the item is removed (its
// channel closes) or the tray stops.
func (v *view) listen(mi *systray.MenuItem, c click) {
	go func() {
		for {
			select {
			case <-v.ctx.Done():
				return
			case _, ok := <-mi.ClickedCh:
				if !ok {
					return
				}
				select {
				case v.clicks <- c:
				case <-v.ctx.Done():
					return
				}
			}
		}
	}()
}

func apply(mi *systray.MenuItem, was *Item, it Item) {
	if was.Label != it.Label {
		mi.SetTitle(it.Label)
	}
	if was.Tooltip != it.Tooltip {
		mi.SetTooltip(it.Tooltip)
	}
	if was.Enabled != it.Enabled {
		if it.Enabled {
			mi.Enable()
		} else {
			mi.Disable()
		}
	}
	*was = it
}

// render brings the native menu in line with m, changing only what
// differs.
func (v *view) render(m Menu) {
	present := make(map[string]bool, len(m.Watchers))
	for _, e := range m.Watchers {
		present[e.ID] = true
	}
	for id, i := range v.ids {
		if !present[id] {
			delete(v.ids, id)
			s := v.slots[i]
			s.id = ""
			if s.visible {
				s.top.Hide()
				s.visible = false
			}
		}
	}
	if len(m.Watchers) > len(v.slots) {
		systray.ResetMenu()
		v.build(2 * len(m.Watchers))
	}
	for _, e := range m.Watchers {
		i, ok := v.ids[e.ID]
		if !ok {
			i = v.freeSlot()
			v.ids[e.ID] = i
			v.slots[i].id = e.ID
		}
		s := v.slots[i]
		apply(s.top, &s.topA, e.Item)
		for j, it := range e.Sub {
			apply(s.sub[j], &s.subA[j], it)
		}
		if !s.visible {
			s.top.Show()
			s.visible = true
		}
	}
	apply(v.header, &v.headerA, m.Header)
	for i, it := range m.Global {
		apply(v.global[i], &v.globalA[i], it)
	}
	if v.icon != m.State {
		systray.SetIcon(Icon(m.State))
		v.icon = m.State
	}
	if v.tip != m.Tooltip {
		systray.SetTooltip(m.Tooltip)
		v.tip = m.Tooltip
	}
}

// resetIcon makes the next render set the icon and tooltip again.
func (v *view) resetIcon() { v.icon, v.tip = "", "" }

func (v *view) freeSlot() int {
	for i, s := range v.slots {
		if s.id == "" {
			return i
		}
	}
	return -1 // cannot happen: render grows the pool first
}

// action is what a click means now; ok is false for a stale or disabled
// item.
func (v *view) action(c click) (Action, bool) {
	if c.global >= 0 {
		if c.global >= len(v.globalA) || !v.globalA[c.global].Enabled {
			return Action{}, false
		}
		return v.globalA[c.global].Action, true
	}
	if c.slot >= len(v.slots) {
		return Action{}, false
	}
	s := v.slots[c.slot]
	if s.id == "" || c.sub >= len(s.subA) || !s.subA[c.sub].Enabled {
		return Action{}, false
	}
	return s.subA[c.sub].Action, true
}

// startNative shows the icon and calls ready once the menu items may be
// created; started is closed once the native side is fully up (on Linux,
// icon and tooltip set while it was exporting itself can be lost, so the
// view sets them again then). It returns the function that removes the
// icon. On macOS it must be called on the main thread and blocks until
// systray.Quit.
func startNative(ready func(), started chan<- struct{}) (stop func()) {
	systray.SetIcon(Icon(Failing))
	if runtime.GOOS == "darwin" {
		close(started)
		systray.Run(ready, nil)
		return func() {}
	}
	systray.SetTitle("tend") // also the item's Id on D-Bus
	start, end := systray.RunWithExternalLoop(ready, nil)
	start()
	close(started)
	return func() {
		defer func() { recover() }() // systray closes a connection it may not have made
		end()
	}
}

func quitNative() { systray.Quit() }
