// Package events turns a watched folder into a stream of change notices.
//
// A Source reports batches of changed absolute paths (Notice). It never
// tries to be complete on its own: when it loses track (a kernel queue
// overflow, FSEvents asking for a subtree rescan, the start of polling) it
// says so with Notice.Rescan and the consumer re-fingerprints the folder.
//
// New picks the platform source: inotify through github.com/fsnotify/fsnotify
// with a recursive layer of our own on Linux (falling back to polling when
// the kernel runs out of watches), FSEvents through
// github.com/fsnotify/fsevents on macOS built with cgo, and polling
// everywhere else. NewPoll always polls.
package events
