// Package api is the daemon's local API: the types that cross it and the
// client the CLI and the tray use. The daemon serves it over a unix
// socket (TEND_HOME/tend.sock, mode 0600) and, for the browser, over
// loopback TCP guarded by a token.
package api

import (
	"time"

	"github.com/tend-agent/tend/watchers"
)

// View is a watcher as clients see it: its definition and runtime state.
type View struct {
	Definition watchers.Definition `json:"definition"`
	State      watchers.State      `json:"state"`
	Badge      string              `json:"badge"`
}

// Status answers GET /v1/status.
type Status struct {
	PID      int       `json:"pid"`
	Version  string    `json:"version"`
	Home     string    `json:"home"`
	Started  time.Time `json:"started"`
	HTTP     string    `json:"http,omitempty"`
	Watchers []View    `json:"watchers"`
	Problems []string  `json:"problems,omitempty"` // definition files skipped, with the reason
	Running  int       `json:"running"`
	MaxRuns  int       `json:"maxRuns"`
}

// Event is one status change on the daemon's event stream (GET /v1/events,
// server-sent events).
type Event struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Status    watchers.Phase `json:"status"`
	Badge     string         `json:"badge"`
	Reason    string         `json:"reason,omitempty"`
	FireCount int            `json:"fireCount"`
	Pending   int            `json:"pendingCount"`
	Time      time.Time      `json:"time"`
	Removed   bool           `json:"removed,omitempty"`
}

// AddRequest creates a watcher (POST /v1/watchers).
type AddRequest struct {
	Definition watchers.Definition `json:"definition"`
}

// RunRequest triggers a run now (POST /v1/watchers/{ref}/run).
type RunRequest struct {
	DryRun bool `json:"dryRun"`
}

// RunResponse names the run that started.
type RunResponse struct {
	RunID string `json:"runId"`
}

// ResumeRequest resumes a watcher. Reset clears its fire count; Forget
// dismisses the pending changes, taking the folder as it is now as the
// new baseline instead of dispatching them.
type ResumeRequest struct {
	Reset  bool `json:"reset"`
	Forget bool `json:"forget,omitempty"`
}

// UndoRequest reverses a run (the last one when RunID is empty).
type UndoRequest struct {
	RunID string `json:"runId"`
}

// UndoResponse reports what undo did or why it refused.
type UndoResponse struct {
	RunID     string   `json:"runId"`
	Restored  []string `json:"restored"`
	Conflicts []string `json:"conflicts,omitempty"`
	// Notes say what was restored but not exactly (a hard link that could
	// not be kept).
	Notes []string `json:"notes,omitempty"`
	// Touched lists every path the undone run's ledger named: what the
	// watcher takes as its own change rather than news.
	Touched []string `json:"touched,omitempty"`
	// NotUndone names the steps of a crash-interrupted run that recovery
	// could not settle: undo leaves them as they are.
	NotUndone []string `json:"notUndone,omitempty"`
}

// AttachRequest makes an instance of a template (POST /v1/attach).
type AttachRequest struct {
	Template string `json:"template"`
	Path     string `json:"path"`
	Name     string `json:"name"`
}

// Error is the body of every non-2xx answer.
type Error struct {
	Error string `json:"error"`
}
