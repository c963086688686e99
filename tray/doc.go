// Package tray is tend's menu-bar / system-tray icon. It is purely a client
// of the daemon's local API: it follows the daemon's event stream (never
// polls), shows the overall state as its icon and lists each watcher with
// its badge and a submenu of actions.
//
// The pieces are kept apart so most of it is testable without a desktop:
//   - model.go: the pure menu model (which items exist, their labels,
//     enabled state and the action each triggers), built from a snapshot;
//   - icons.go: the four state icons, drawn at start-up;
//   - follow.go: the event-stream follower with reconnect and backoff;
//   - bus.go, host_*.go: finding a tray host (on Linux a D-Bus session bus with a
//     StatusNotifierWatcher) before any systray call is made;
//   - actions.go: what each menu action asks of the daemon or the desktop;
//   - run.go, view.go: the loop and the fyne.io/systray items, pooled per watcher, because a
//     native menu cannot reorder items: slots are hidden, shown and reused.
package tray
