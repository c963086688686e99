// Package watchers holds watcher definitions and their JSON store, runtime
// state, the per-watcher state machine with its debounce tiers, nested
// watcher exclusion and the guards that keep a watcher from running away.
// Event sources live in the events subpackage.
package watchers
