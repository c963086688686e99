//go:build unix

package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cespare/xxhash/v2"
)

// hashText is the content hash Meta records, for content not yet on disk.
func hashText(s string) string {
	return fmt.Sprintf("%016x", xxhash.Sum64String(s))
}

// The journal is the write-ahead form of a run's ledger: an append-only
// file of JSON lines, each written whole and fsynced before the next step.
// A mutation is announced by an intent record (with its backup already on
// disk) before the folder is touched, and confirmed by a done record (or
// withdrawn by an abort record) after. The runner ends the journal with an
// end record when the run finishes; a journal without one belongs to a run
// the daemon never finished, and RecoverJournal settles it.
const (
	jBegin  = "begin"
	jIntent = "intent"
	jDone   = "done"
	jAbort  = "abort"
	jEnd    = "end"
)

// JournalFile is the journal's file name inside a run's folder.
const JournalFile = "journal.jsonl"

type journalRec struct {
	Rec  string    `json:"rec"`
	Time time.Time `json:"time"`
	Seq  int       `json:"seq,omitempty"`
	// intent and done: the effect (done carries the After state)
	Effect *Effect `json:"effect,omitempty"`
	// intent: the state Path (To for a move or copy) will be in once the
	// step is applied, so recovery can tell a finished step from one that
	// never happened
	Want *Meta `json:"want,omitempty"`
	// begin
	RunID     string `json:"runId,omitempty"`
	WatcherID string `json:"watcherId,omitempty"`
	Root      string `json:"root,omitempty"`
	BackupDir string `json:"backupDir,omitempty"`
	// end
	Outcome string `json:"outcome,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// LedgerError means tend could not write its own records of a change (the
// journal or a backup), typically because its home folder's disk is full
// or read-only. The message is for the model; the runner stops the run.
type LedgerError struct {
	What    string // the step, e.g. `file_write of "a.txt"`
	Applied bool   // the change was made; only its completion is unrecorded
	Err     error
}

func (e *LedgerError) Error() string {
	if e.Applied {
		return fmt.Sprintf("%s was made, but tend could not record it as finished in its undo ledger (%v); this run stops here, and tend checks the change when it next starts", e.What, e.Err)
	}
	return fmt.Sprintf("tend could not write its undo ledger (%v), so %s was not made; this run stops here: no change can be made until tend's home folder has room again", e.Err, e.What)
}

func (e *LedgerError) Unwrap() error { return e.Err }

// journal appends records to one run's journal file.
type journal struct {
	path string
	f    *os.File
	size int64
}

// openJournal opens (creating) the journal at path; a new file starts with
// a begin record, and its folder is synced so the file itself survives a
// crash.
func openJournal(path string, begin journalRec) (*journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	j := &journal{path: path, f: f, size: fi.Size()}
	if j.size > 0 {
		// A last line cut short by a crash is dropped, so the next
		// record starts on a line of its own.
		data, err := os.ReadFile(path)
		if err != nil {
			f.Close()
			return nil, err
		}
		if keep := int64(bytes.LastIndexByte(data, '\n') + 1); keep < j.size {
			if err := f.Truncate(keep); err != nil {
				f.Close()
				return nil, err
			}
			j.size = keep
		}
	}
	if j.size == 0 {
		if err := j.append(begin); err != nil {
			f.Close()
			os.Remove(path)
			return nil, err
		}
		if err := syncDir(filepath.Dir(path)); err != nil {
			f.Close()
			return nil, err
		}
	}
	return j, nil
}

// append writes rec as one line and syncs it. A write cut short is taken
// back, so the file only ever holds whole records.
func (j *journal) append(rec journalRec) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	_, err = j.f.Write(line)
	if err == nil {
		err = j.f.Sync()
	}
	if err != nil {
		if j.f.Truncate(j.size) == nil {
			j.f.Sync()
		}
		return err
	}
	j.size += int64(len(line))
	return nil
}

func (j *journal) close() error { return j.f.Close() }

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// journalState is a journal read back.
type journalState struct {
	begin   journalRec
	intents []journalRec    // in order
	done    map[int]*Effect // by seq
	aborted map[int]bool    // by seq
	end     *journalRec     // nil: the run never finished
	maxSeq  int
}

// readJournal parses a journal. A damaged last line (cut by a crash) is
// skipped: its step was never applied, since a step waits for its intent
// to be on disk. A damaged line elsewhere is an error.
func readJournal(path string) (*journalState, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	st := &journalState{done: map[int]*Effect{}, aborted: map[int]bool{}}
	r := bufio.NewReader(bytes.NewReader(data))
	for lineNo := 1; ; lineNo++ {
		line, rerr := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var rec journalRec
			if err := json.Unmarshal(line, &rec); err != nil || rec.Rec == "" {
				if rerr == io.EOF {
					break // torn last line
				}
				return nil, fmt.Errorf("reading journal %s: line %d is damaged", path, lineNo)
			}
			if rec.Seq > st.maxSeq {
				st.maxSeq = rec.Seq
			}
			switch rec.Rec {
			case jBegin:
				st.begin = rec
			case jIntent:
				if rec.Effect != nil {
					st.intents = append(st.intents, rec)
				}
			case jDone:
				if rec.Effect != nil {
					st.done[rec.Seq] = rec.Effect
				}
			case jAbort:
				st.aborted[rec.Seq] = true
			case jEnd:
				r := rec
				st.end = &r
			}
		}
		if rerr == io.EOF {
			break
		}
	}
	return st, nil
}

// ledger rebuilds the ledger of completed steps, in order.
func (st *journalState) ledger() *Ledger {
	l := NewLedger(st.begin.WatcherID, st.begin.RunID)
	l.Root, l.BackupDir = st.begin.Root, st.begin.BackupDir
	for _, in := range st.intents {
		if e := st.done[in.Seq]; e != nil {
			l.Effects = append(l.Effects, *e)
		}
	}
	l.seq = st.maxSeq
	return l
}

// halfDone lists the intents with neither a done nor an abort record.
func (st *journalState) halfDone() []journalRec {
	var out []journalRec
	for _, in := range st.intents {
		if st.done[in.Seq] == nil && !st.aborted[in.Seq] {
			out = append(out, in)
		}
	}
	return out
}

// LoadJournal reads a run's journal into the ledger of its completed
// steps. Ended tells whether the run finished; Pending counts steps begun
// but neither confirmed nor withdrawn (RecoverJournal settles those).
func LoadJournal(path string) (l *Ledger, ended bool, pending int, err error) {
	st, err := readJournal(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, false, 0, err
		}
		return nil, false, 0, fmt.Errorf("reading journal %s: %w", path, err)
	}
	return st.ledger(), st.end != nil, len(st.halfDone()), nil
}

// JournalEnded reports whether the journal at path ends with an end
// record, reading only its tail: start-up checks every run folder.
func JournalEnded(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	const tail = 64 << 10 // an end record is far smaller; its reason is capped below
	off := max(fi.Size()-tail, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	buf = bytes.TrimRight(buf, "\n")
	last := buf[bytes.LastIndexByte(buf, '\n')+1:]
	var rec journalRec
	return json.Unmarshal(last, &rec) == nil && rec.Rec == jEnd, nil
}

// capReason keeps an end record's reason short, so JournalEnded finds the
// record in the file's tail.
func capReason(s string) string {
	const max = 8 << 10
	if len(s) <= max {
		return s
	}
	return s[:max] + " …"
}
