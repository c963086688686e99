//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Recovery is what RecoverJournal did with the journal of a run the daemon
// never finished.
type Recovery struct {
	// Ledger holds the run's completed steps, now undoable; its
	// Unresolved lists the steps that could not be settled.
	Ledger *Ledger
	// Settled says, per half-done step, what recovery decided.
	Settled []string
	// Touched lists every path the run's steps named (done, withdrawn or
	// not), for the watcher to take as the run's own doing.
	Touched []string

	path string // the journal, until End
	now  func() time.Time
}

// OutcomeInterrupted ends the journal of a run recovered after a crash.
const OutcomeInterrupted = "interrupted"

// RecoverJournal settles the journal of an interrupted run (one without an
// end record); End closes it. Every step whose done record is on disk stays
// undoable. A half-done step (an intent without a done or abort record)
// is decided by what the folder shows, per operation:
//
//   - write, edit: the target holds the intended content → done (its
//     backup is on disk); it holds the old content (or is absent for a
//     new file) → never happened, withdrawn. A leftover temporary file of
//     the write is removed.
//   - mkdir: the folder exists → done; absent → withdrawn.
//   - move: the entry is at its destination and gone from its source →
//     done; still at its source → withdrawn.
//   - copy: a file copy at the destination with the source's content →
//     done; no destination → withdrawn; a folder copy may be partial, so
//     it is rolled back: the destination goes to the trash.
//   - delete: the entry is still there → withdrawn; it is gone → done,
//     once its trash entry is found (the trash names it only on the way).
//
// Anything else (the target was changed by someone else while tend was
// down) is left alone and named in Ledger.Unresolved: undo cannot restore
// it. root is where the folder is now (the journal's own record is used
// when empty); trash defaults to the OS trash.
func RecoverJournal(path, root string, trash Trash, now func() time.Time) (*Recovery, error) {
	if now == nil {
		now = time.Now
	}
	st, err := readJournal(path)
	if err != nil {
		return nil, fmt.Errorf("recovering run journal %s: %w", path, err)
	}
	l := st.ledger()
	rec := &Recovery{Ledger: l}
	touched := map[string]bool{}
	for _, in := range st.intents {
		for _, p := range []string{in.Effect.Path, in.Effect.To} {
			if p != "" && !touched[p] {
				touched[p] = true
				rec.Touched = append(rec.Touched, p)
			}
		}
	}
	if st.end != nil {
		return rec, nil
	}
	half := st.halfDone()
	if root == "" {
		root = st.begin.Root
	}
	var fs *fsRoot
	if len(half) > 0 {
		resolved, err := filepath.EvalSymlinks(root)
		if err == nil {
			fs, err = openRoot(resolved)
		}
		if err != nil {
			for _, in := range half {
				l.Unresolved = append(l.Unresolved, fmt.Sprintf("step %d (%s %s): cannot be checked: %v", in.Seq, in.Effect.Op, in.Effect.Path, err))
			}
		} else {
			defer fs.close()
			if trash == nil {
				if trash, err = DefaultTrash(resolved); err != nil {
					trash = nil
				}
			}
		}
	}
	j, err := openJournal(path, journalRec{})
	if err != nil {
		return nil, fmt.Errorf("recovering run journal %s: %w", path, err)
	}
	defer j.close()
	for _, in := range half {
		if fs == nil {
			break
		}
		e := *in.Effect
		var want Meta
		if in.Want != nil {
			want = *in.Want
		}
		done, verdict, unresolved := settle(fs, e, want, trash, st.begin.BackupDir, now)
		switch {
		case unresolved != "":
			l.Unresolved = append(l.Unresolved, fmt.Sprintf("%s %s: %s", e.Op, describeStep(e), unresolved))
			continue
		case done != nil:
			if err := j.append(journalRec{Rec: jDone, Time: now(), Seq: e.Seq, Effect: done}); err != nil {
				return nil, fmt.Errorf("recovering run journal %s: %w", path, err)
			}
			l.Effects = insertBySeq(l.Effects, *done)
		default:
			if err := j.append(journalRec{Rec: jAbort, Time: now(), Seq: e.Seq}); err != nil {
				return nil, fmt.Errorf("recovering run journal %s: %w", path, err)
			}
		}
		rec.Settled = append(rec.Settled, fmt.Sprintf("%s %s: %s", e.Op, describeStep(e), verdict))
	}
	rec.path, rec.now = path, now
	return rec, nil
}

// End closes the recovered journal, so later start-ups leave it alone.
// Call it once the run's changes are taken into the watcher's baseline: a
// crash before then recovers the journal again, which is harmless (its
// half-done steps are settled already).
func (r *Recovery) End() error {
	if r.path == "" {
		return nil // the journal had ended already
	}
	j, err := openJournal(r.path, journalRec{})
	if err != nil {
		return fmt.Errorf("ending recovered journal %s: %w", r.path, err)
	}
	defer j.close()
	reason := strings.Join(append(append([]string(nil), r.Settled...), r.Ledger.Unresolved...), "; ")
	if err := j.append(journalRec{Rec: jEnd, Time: r.now(), Outcome: OutcomeInterrupted, Reason: capReason(reason)}); err != nil {
		return fmt.Errorf("ending recovered journal %s: %w", r.path, err)
	}
	return nil
}

func describeStep(e Effect) string {
	if e.To != "" {
		return e.Path + " → " + e.To
	}
	return e.Path
}

func insertBySeq(effects []Effect, e Effect) []Effect {
	i := len(effects)
	for i > 0 && effects[i-1].Seq > e.Seq {
		i--
	}
	effects = append(effects, Effect{})
	copy(effects[i+1:], effects[i:])
	effects[i] = e
	return effects
}

// settle decides one half-done step: done (with the completed effect),
// withdrawn (done == nil), or unresolved (a reason).
func settle(fs *fsRoot, e Effect, want Meta, trash Trash, backupDir string, now func() time.Time) (done *Effect, verdict, unresolved string) {
	cur, err := metaRel(fs, e.Path, true)
	if err != nil {
		return nil, "", fmt.Sprintf("cannot be checked: %v", err)
	}
	switch e.Op {
	case OpWrite, OpEdit:
		removeTemps(fs, e.Path)
		switch {
		case cur.Exists && cur.Kind == "file" && sameContent(cur, want):
			e.After = cur
			return &e, "finished before the stop; kept, undoable", ""
		case sameContent(cur, e.Before):
			if e.Backup != "" && backupDir != "" {
				os.Remove(filepath.Join(backupDir, e.Backup))
			}
			return nil, "never happened", ""
		}
		return nil, "", "changed by something else while tend was stopped; left as it is"
	case OpMkdir:
		switch {
		case cur.Exists && cur.Kind == "dir":
			e.After = cur
			return &e, "finished before the stop; kept, undoable", ""
		case !cur.Exists:
			return nil, "never happened", ""
		}
		return nil, "", fmt.Sprintf("a %s is there instead of a folder; left as it is", kindName(cur.Kind))
	case OpMove:
		to, err := metaRel(fs, e.To, true)
		if err != nil {
			return nil, "", fmt.Sprintf("cannot be checked: %v", err)
		}
		switch {
		case !cur.Exists && sameEntry(to, e.Before):
			e.After = to
			return &e, "finished before the stop; kept, undoable", ""
		case sameEntry(cur, e.Before) && !to.Exists:
			return nil, "never happened", ""
		}
		return nil, "", "neither where it was nor where it was going, as tend left it; left as it is"
	case OpCopy:
		removeTemps(fs, e.To)
		to, err := metaRel(fs, e.To, true)
		if err != nil {
			return nil, "", fmt.Sprintf("cannot be checked: %v", err)
		}
		switch {
		case !to.Exists:
			return nil, "never happened", ""
		case to.Kind == "dir" && e.Before.Kind == "dir":
			// A folder copy cut short may lack entries: take it back.
			if trash == nil {
				return nil, "", "a folder copy may be incomplete and no trash is available to take it back; left as it is"
			}
			if err := trashRel(fs, e.To, trash, Options{Now: now}); err != nil {
				return nil, "", fmt.Sprintf("a folder copy may be incomplete and could not be moved to the trash: %v", err)
			}
			return nil, "a possibly incomplete folder copy, moved to the trash", ""
		case sameContent(to, e.Before): // a copy gets a new modification time
			e.After = to
			return &e, "finished before the stop; kept, undoable", ""
		}
		return nil, "", "something else is at the destination; left as it is"
	case OpDelete:
		var found string
		if trash != nil {
			found = findTrashed(trash, fs.abs(e.Path), e.Before)
		}
		switch {
		case cur.Exists && found != "" && e.Before.Kind == "dir":
			return nil, "", fmt.Sprintf("was being moved to the trash when tend stopped: part of it is still here, part in %s", found)
		case sameEntry(cur, e.Before):
			return nil, "never happened", ""
		case !cur.Exists && found != "":
			e.TrashPath = found
			return &e, "finished before the stop; kept, undoable from " + found, ""
		case !cur.Exists:
			return nil, "", "was moved to the trash when tend stopped, but tend cannot find it there; look for it in the trash"
		}
		return nil, "", "changed by something else while tend was stopped; left as it is"
	}
	return nil, "", "unknown step"
}

// sameContent: both absent, or the same kind and (for files) size and hash.
func sameContent(got, want Meta) bool {
	if got.Exists != want.Exists {
		return false
	}
	if !got.Exists {
		return true
	}
	if got.Kind != want.Kind {
		return false
	}
	if got.Kind != "file" {
		return true
	}
	return got.Size == want.Size && (want.Hash == "" || got.Hash == want.Hash)
}

// sameEntry: the same entry, as far as a rename keeps it (kind, and for
// files size, modification time and content).
func sameEntry(got, want Meta) bool {
	return sameContent(got, want) && (got.Kind == "dir" || got.MtimeNs == want.MtimeNs)
}

// removeTemps deletes tend's own temporary files (".tend-*.tmp") left in
// the folder of rel by a write cut short.
func removeTemps(fs *fsRoot, rel string) {
	parent, _ := splitRel(rel)
	fd, err := fs.openDir(parent)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	names, err := readNames(fd, ".")
	if err != nil {
		return
	}
	for _, n := range names {
		if strings.HasPrefix(n, ".tend-") && strings.HasSuffix(n, ".tmp") {
			if m, _ := metaAt(fd, n, false); m.Kind == "file" {
				unix.Unlinkat(fd, n, 0)
			}
		}
	}
}

// findTrashed looks for the entry that was at origAbs in the trash: the
// trash picks the entry's name while it moves it, so a step cut short
// never recorded where it went. It returns "" when none matches before.
func findTrashed(trash Trash, origAbs string, before Meta) string {
	name := filepath.Base(origAbs)
	var dir, sep string
	var info func(cand string) bool
	switch t := trash.(type) {
	case FreedesktopTrash:
		dir, sep = filepath.Join(t.Dir, "files"), "."
		recorded := origAbs
		if t.TopDir != "" {
			if r, err := filepath.Rel(t.TopDir, origAbs); err == nil && !strings.HasPrefix(r, "..") {
				recorded = r
			}
		}
		want := "Path=" + (&url.URL{Path: recorded}).EscapedPath()
		info = func(cand string) bool {
			b, err := os.ReadFile(filepath.Join(t.Dir, "info", cand+".trashinfo"))
			return err == nil && strings.Contains(string(b), want+"\n")
		}
	case DirTrash:
		dir, sep = t.Dir, " "
		info = func(string) bool { return true }
	default:
		return ""
	}
	found, misses := "", 0
	for i := 1; i < 10000 && misses < 64; i++ {
		cand := trashName(name, i, sep)
		p := filepath.Join(dir, cand)
		if _, err := os.Lstat(p); err != nil {
			misses++
			continue
		}
		misses = 0
		if info(cand) && sameEntry(metaPath(p), before) {
			found = p // the last match is the newest
		}
	}
	return found
}

// metaPath describes an absolute path outside the folder (a trash entry).
func metaPath(p string) Meta {
	fd, err := unix.Open(filepath.Dir(p), oPath|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return Meta{}
	}
	defer unix.Close(fd)
	m, err := metaAt(fd, filepath.Base(p), true)
	if err != nil && !errors.Is(err, unix.ENOENT) {
		return Meta{}
	}
	return m
}
