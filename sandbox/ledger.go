//go:build unix

package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"
)

// Effect ops.
const (
	OpWrite  = "write"  // file_write: Path created, or replaced (Before.Exists, Backup)
	OpEdit   = "edit"   // file_edit: Path's content changed (Backup holds the old)
	OpMove   = "move"   // file_move: Path moved to To
	OpCopy   = "copy"   // file_copy: Path copied to To
	OpMkdir  = "mkdir"  // dir_create, or a parent made for a write, move or copy
	OpDelete = "delete" // file_delete: Path moved to TrashPath
)

// Effect is one change a tool made (or, with DryRun, would have made).
// Before/After describe Path, except for move and copy where After
// describes To (and Path is absent after a move). ToBefore is To before.
type Effect struct {
	Seq       int       `json:"seq"`
	Time      time.Time `json:"time"`
	Op        string    `json:"op"`
	Path      string    `json:"path"`
	To        string    `json:"to,omitempty"`
	Before    Meta      `json:"before"`
	After     Meta      `json:"after"`
	ToBefore  Meta      `json:"toBefore,omitempty"`
	Backup    string    `json:"backup,omitempty"`
	TrashPath string    `json:"trashPath,omitempty"`
	DryRun    bool      `json:"dryRun,omitempty"`

	// Trashed is the deleted entry as it lay in the trash right after the
	// delete (inode, size, time, hash): undo restores only that entry.
	Trashed *Meta `json:"trashed,omitempty"`
	// TrashCopied: the trash is on another file system, so the entry was
	// copied there and the original removed.
	TrashCopied bool `json:"trashCopied,omitempty"`
}

// Ledger is the effects ledger of one run. It is safe for concurrent use.
type Ledger struct {
	RunID     string   `json:"runId"`
	WatcherID string   `json:"watcherId"`
	Root      string   `json:"root,omitempty"`      // the watched folder, set by New
	BackupDir string   `json:"backupDir,omitempty"` // where Backup names live, set by New
	Effects   []Effect `json:"effects"`
	// Unresolved names the steps of an interrupted run that recovery could
	// not settle (neither confirm nor take back): they cannot be undone.
	Unresolved []string `json:"unresolved,omitempty"`

	mu    sync.Mutex
	seq   int      // the last step number given out
	jpath string   // write-ahead journal; "" keeps the ledger in memory only
	j     *journal // open once the first step was written
}

// NewLedger starts an empty ledger for one run of one watcher.
func NewLedger(watcherID, runID string) *Ledger {
	return &Ledger{RunID: runID, WatcherID: watcherID, Effects: []Effect{}}
}

// add appends e, numbering it. Dry-run effects change nothing, so they
// go straight in without the journal.
func (l *Ledger) add(e Effect) Effect {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	e.Seq = l.seq
	l.Effects = append(l.Effects, e)
	return e
}

// UseJournal makes the ledger write ahead to the journal file at path:
// every real step is recorded and synced there before it is applied, and
// confirmed after. The file is created with the first step.
func (l *Ledger) UseJournal(path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.jpath = path
}

// intend numbers e and, with a journal, records it as about to happen;
// want is the state its target will be in once applied. Nothing may be
// changed when it fails.
func (l *Ledger) intend(e Effect, want Meta) (Effect, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	e.Seq = l.seq
	if l.jpath == "" {
		return e, nil
	}
	if l.j == nil {
		j, err := openJournal(l.jpath, journalRec{Rec: jBegin, Time: e.Time, RunID: l.RunID,
			WatcherID: l.WatcherID, Root: l.Root, BackupDir: l.BackupDir})
		if err != nil {
			return e, err
		}
		l.j = j
	}
	return e, l.j.append(journalRec{Rec: jIntent, Time: e.Time, Seq: e.Seq, Effect: &e, Want: &want})
}

// commit adds the applied step e to the ledger and confirms it in the
// journal. The effect is kept even when the journal write fails: the
// change was made.
func (l *Ledger) commit(e Effect) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Effects = append(l.Effects, e)
	if l.j == nil {
		return nil
	}
	return l.j.append(journalRec{Rec: jDone, Time: e.Time, Seq: e.Seq, Effect: &e})
}

// abort withdraws step seq, which failed without changing anything. When
// even that cannot be written, recovery finds the target as it was.
func (l *Ledger) abort(seq int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.j != nil {
		l.j.append(journalRec{Rec: jAbort, Time: time.Now(), Seq: seq})
	}
}

// EndJournal closes the journal with an end record: the run finished and
// needs no recovery. Without a journal (no real step) it does nothing.
func (l *Ledger) EndJournal(outcome, reason string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.j == nil {
		return nil
	}
	err := l.j.append(journalRec{Rec: jEnd, Time: time.Now(), Outcome: outcome, Reason: capReason(reason)})
	if cerr := l.j.close(); err == nil {
		err = cerr
	}
	l.j = nil
	if err != nil {
		return fmt.Errorf("ending the journal of run %s: %w", l.RunID, err)
	}
	return nil
}

// Snapshot returns a copy of the effects recorded so far.
func (l *Ledger) Snapshot() []Effect {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Effect(nil), l.Effects...)
}

func (l *Ledger) setPlace(root, backupDir string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Root == "" {
		l.Root = root
	}
	if l.BackupDir == "" {
		l.BackupDir = backupDir
	}
}

// DryRun reports whether the ledger holds only planned (dry-run) effects.
func (l *Ledger) DryRun() bool {
	eff := l.Snapshot()
	for _, e := range eff {
		if !e.DryRun {
			return false
		}
	}
	return len(eff) > 0
}

// Save writes the ledger as JSON to path atomically.
func (l *Ledger) Save(path string) error {
	l.mu.Lock()
	data, err := json.MarshalIndent(l, "", "  ")
	l.mu.Unlock()
	if err != nil {
		return fmt.Errorf("encoding ledger of run %s: %w", l.RunID, err)
	}
	if err := atomicWriteFile(path, bytes.NewReader(append(data, '\n')), 0o600); err != nil {
		return fmt.Errorf("saving ledger of run %s: %w", l.RunID, err)
	}
	return nil
}

// LoadLedger reads a ledger saved by Save.
func LoadLedger(path string) (*Ledger, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading ledger %s: %w", path, err)
	}
	l := &Ledger{}
	if err := json.Unmarshal(data, l); err != nil {
		return nil, fmt.Errorf("reading ledger %s: %w", path, err)
	}
	return l, nil
}

// Touched lists every path the run's real (not dry-run) effects named, as
// sources or destinations, sorted and without repeats. The engine folds
// them into its fingerprint after a pass, so the run's own changes are
// seen even before their file-system events arrive.
func (l *Ledger) Touched() []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range l.Snapshot() {
		if e.DryRun {
			continue
		}
		for _, p := range []string{e.Path, e.To} {
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}
