package watchers

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tend-agent/tend/internal/atomicfile"
)

// Phase is where a watcher is in its cycle.
type Phase string

const (
	PhaseStarting   Phase = "starting"
	PhaseIdle       Phase = "idle"
	PhaseDebouncing Phase = "debouncing"
	PhaseProcessing Phase = "processing"
	PhaseSettling   Phase = "settling"
	PhasePaused     Phase = "paused"
	PhaseExhausted  Phase = "exhausted"
	PhaseError      Phase = "error"
)

// Badge is the one word a person sees for a phase.
func (p Phase) Badge() string {
	switch p {
	case PhaseProcessing, PhaseSettling:
		return "Running"
	case PhasePaused:
		return "Paused"
	case PhaseExhausted:
		return "Exhausted"
	case PhaseError:
		return "Error"
	default:
		return "Watching"
	}
}

// State is a watcher's runtime state, kept apart from its definition in
// state/{id}.json. Only the daemon writes it.
type State struct {
	ID           string      `json:"id"`
	Phase        Phase       `json:"phase"`
	Reason       string      `json:"reason,omitempty"`
	WatchMode    string      `json:"watchMode,omitempty"`
	WatchReason  string      `json:"watchReason,omitempty"`
	FireCount    int         `json:"fireCount"`
	Failures     int         `json:"consecutiveFailures"`
	Runs         int         `json:"runs"`
	LastTrigger  time.Time   `json:"lastTrigger,omitzero"`
	LastRunID    string      `json:"lastRunId,omitempty"`
	LastRunEnd   time.Time   `json:"lastRunEnd,omitzero"`
	LastOutcome  string      `json:"lastOutcome,omitempty"`
	LastChanges  int         `json:"lastChanges"`
	BaselineRoot string      `json:"baselineRoot,omitempty"`
	Files        int         `json:"files"`
	Dirs         int         `json:"dirs"`
	Skipped      []string    `json:"skipped,omitempty"`
	EventID      uint64      `json:"eventId,omitempty"`
	NextDue      time.Time   `json:"nextDue,omitzero"`
	LastCheckEnd time.Time   `json:"lastCheckEnd,omitzero"`
	LastCheck    string      `json:"lastCheck,omitempty"`
	FireTimes    []time.Time `json:"fireTimes,omitempty"`
	// Pending are the changes seen but not yet handled by a finished run
	// (relative paths, sorted); the baseline moves past a change only
	// when a run handled it or the user dismissed it.
	Pending      []PendingChange `json:"pending,omitempty"`
	PendingCount int             `json:"pendingCount"`
	// Queued names the triggers (tail, check, schedule) waiting for the
	// run in progress or a guard.
	Queued        []string  `json:"queued,omitempty"`
	CheckFailures int       `json:"checkFailures,omitempty"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// PendingChange is one changed path waiting for a run.
type PendingChange struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // added, removed, modified
}

// StateFiles are the paths of one watcher's runtime files.
type StateFiles struct{ Dir, ID string }

func (s StateFiles) JSON() string { return filepath.Join(s.Dir, s.ID+".json") }
func (s StateFiles) Tree() string { return filepath.Join(s.Dir, s.ID+".tree") }

// LoadState reads the runtime state; a missing file is a fresh state.
func (s StateFiles) Load() (State, error) {
	st := State{ID: s.ID}
	data, err := os.ReadFile(s.JSON())
	if os.IsNotExist(err) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("reading state %s: %w", s.JSON(), err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return State{ID: s.ID}, fmt.Errorf("reading state %s: %w", s.JSON(), err)
	}
	return st, nil
}

// Save writes the runtime state atomically.
func (s StateFiles) Save(st State) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(s.JSON(), append(data, '\n'), 0o600)
}

// Remove deletes the runtime files of a watcher that is gone.
func (s StateFiles) Remove() {
	os.Remove(s.JSON())
	os.Remove(s.Tree())
}
