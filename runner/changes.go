package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/sandbox"
	"github.com/tend-agent/tend/watchers"
)

// Limits of a run's changes as the API returns them: a page shows them,
// so a run that rewrote a large file must not produce a huge answer.
const (
	MaxDiffFileBytes  = 256 << 10 // one side of one file
	MaxDiffTotalBytes = 2 << 20   // every file of one answer together
	MaxDiffFiles      = 100
)

// Changes returns what run runID of the watcher changed: the touched
// paths before and after, and the text before and after of every file it
// edited or overwrote. The "before" text is the backup the run kept; the
// "after" text is a later backup of the same run, the file as it is now
// when its content hash is still the one the run left, or the run's own
// tool call replayed on the backup, checked against that hash.
func (r *Runner) Changes(def *watchers.Definition, runID string) (api.RunChanges, error) {
	if err := ValidRunID(runID); err != nil {
		return api.RunChanges{}, err
	}
	dir := r.runDir(def.ID, runID)
	l, undone, err := loadAnyLedger(dir)
	if errors.Is(err, os.ErrNotExist) {
		if _, serr := os.Stat(dir); serr != nil && r.hasRun(def, runID) {
			// A run that changed nothing keeps no ledger.
			return api.RunChanges{RunID: runID, Before: []api.TreeEntry{}, After: []api.TreeEntry{}, Files: []api.FileChange{}}, nil
		}
		return api.RunChanges{}, fmt.Errorf("run %s of %s has no record of changes (see `tend history %s` for its runs): %w", runID, def.Name, def.Name, os.ErrNotExist)
	}
	if err != nil {
		return api.RunChanges{}, fmt.Errorf("reading the ledger of run %s of %s: %w", runID, def.Name, err)
	}
	eff := l.Snapshot()
	out := api.RunChanges{RunID: runID, Undone: undone, DryRun: l.DryRun(), Files: []api.FileChange{}}
	out.Before, out.After = trees(eff)
	if out.DryRun {
		return out, nil
	}
	tools := r.toolCalls(def, runID)
	total := 0
	for _, fc := range fileChanges(eff) {
		if len(out.Files) >= MaxDiffFiles || total >= MaxDiffTotalBytes {
			out.Omitted++
			continue
		}
		c := api.FileChange{Path: fc.path, Op: fc.first.Op}
		before, note := readBackup(dir, fc.first.Backup, fc.first.Before.Size)
		if before != nil {
			c.Before = before
		} else {
			c.Note = "before: " + note
		}
		after, note := r.afterText(def, dir, fc, undone, tools)
		if after != nil {
			c.After = after
		} else if c.Note == "" {
			c.Note = "after: " + note
		} else {
			c.Note += "; after: " + note
		}
		if c.Before != nil {
			total += len(*c.Before)
		}
		if c.After != nil {
			total += len(*c.After)
		}
		out.Files = append(out.Files, c)
	}
	return out, nil
}

// loadAnyLedger reads a run's ledger, also one already undone.
func loadAnyLedger(dir string) (*sandbox.Ledger, bool, error) {
	l, err := loadRunLedger(dir)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return l, false, err
	}
	l, uerr := sandbox.LoadLedger(filepath.Join(dir, "ledger.undone.json"))
	jl, _, _, jerr := sandbox.LoadJournal(filepath.Join(dir, "journal.undone.jsonl"))
	switch {
	case uerr == nil && (jerr != nil || len(jl.Snapshot()) <= len(l.Snapshot())):
		return l, true, nil
	case jerr == nil:
		return jl, true, nil
	}
	return nil, false, err
}

// hasRun reports whether the watcher's session names the run.
func (r *Runner) hasRun(def *watchers.Definition, runID string) bool {
	runs, _ := dispatch.ReadHistory(r.history(def.ID).Path())
	for _, ru := range runs {
		if ru.ID == runID {
			return true
		}
	}
	return false
}

// pathState is one path's state before a run's first change to it and
// after its last.
type pathState struct {
	before, after sandbox.Meta
}

// trees lists the paths the real effects touched, before and after.
func trees(eff []sandbox.Effect) (before, after []api.TreeEntry) {
	st := map[string]*pathState{}
	touch := func(p string, b, a sandbox.Meta) {
		if p == "" {
			return
		}
		s := st[p]
		if s == nil {
			s = &pathState{before: b}
			st[p] = s
		}
		s.after = a
	}
	for _, e := range eff {
		switch e.Op {
		case sandbox.OpMove:
			touch(e.Path, e.Before, sandbox.Meta{})
			touch(e.To, e.ToBefore, e.After)
		case sandbox.OpCopy:
			touch(e.Path, e.Before, e.Before)
			touch(e.To, e.ToBefore, e.After)
		case sandbox.OpDelete:
			touch(e.Path, e.Before, sandbox.Meta{})
		default:
			touch(e.Path, e.Before, e.After)
		}
	}
	paths := make([]string, 0, len(st))
	for p := range st {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	before, after = []api.TreeEntry{}, []api.TreeEntry{}
	for _, p := range paths {
		s := st[p]
		changed := s.before.Exists && s.after.Exists && (s.before.Kind != s.after.Kind ||
			s.before.Size != s.after.Size || s.before.Hash != s.after.Hash)
		if s.before.Exists {
			te := api.TreeEntry{Path: p, Kind: s.before.Kind, Size: s.before.Size}
			if !s.after.Exists {
				te.Status = "removed"
			} else if changed {
				te.Status = "changed"
			}
			before = append(before, te)
		}
		if s.after.Exists {
			te := api.TreeEntry{Path: p, Kind: s.after.Kind, Size: s.after.Size}
			if !s.before.Exists {
				te.Status = "added"
			} else if changed {
				te.Status = "changed"
			}
			after = append(after, te)
		}
	}
	return before, after
}

// fileChange is one file's edits and overwrites in a run, in order.
type fileChange struct {
	path        string
	first, last sandbox.Effect
	// movedAway: a later step moved or deleted the file, so its content
	// is no longer at path.
	movedAway bool
}

func fileChanges(eff []sandbox.Effect) []*fileChange {
	var order []*fileChange
	by := map[string]*fileChange{}
	for _, e := range eff {
		if e.DryRun {
			continue
		}
		if (e.Op == sandbox.OpMove || e.Op == sandbox.OpDelete) && by[e.Path] != nil {
			by[e.Path].movedAway = true
			delete(by, e.Path)
			continue
		}
		if e.Backup == "" || (e.Op != sandbox.OpEdit && e.Op != sandbox.OpWrite) {
			continue
		}
		fc := by[e.Path]
		if fc == nil {
			fc = &fileChange{path: e.Path, first: e}
			by[e.Path] = fc
			order = append(order, fc)
		}
		fc.last = e
	}
	return order
}

// contentHash is the hash the sandbox records in Meta.Hash.
func contentHash(b []byte) string {
	return fmt.Sprintf("%016x", xxhash.Sum64(b))
}

// readBackup reads a backup of the run as text.
func readBackup(dir, name string, size int64) (*string, string) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return nil, fmt.Sprintf("the ledger names %q as its backup, which is not a backup name", name)
	}
	b, note := readText(filepath.Join(dir, name))
	if b == nil {
		return nil, note
	}
	s := string(b)
	return &s, ""
}

// readText reads a regular file, not through a link, if it is text of at
// most MaxDiffFileBytes.
func readText(p string) ([]byte, string) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, "the file is missing"
		}
		return nil, "cannot be read: " + err.Error()
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, "not a regular file"
	}
	if fi.Size() > MaxDiffFileBytes {
		return nil, fmt.Sprintf("too large to show (%d bytes; the viewer shows files up to %d KiB)", fi.Size(), MaxDiffFileBytes>>10)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxDiffFileBytes+1))
	if err != nil {
		return nil, "cannot be read: " + err.Error()
	}
	if len(b) > MaxDiffFileBytes {
		return nil, fmt.Sprintf("too large to show (over %d KiB)", MaxDiffFileBytes>>10)
	}
	if !isText(b) {
		return nil, "not a text file"
	}
	return b, ""
}

func isText(b []byte) bool {
	return utf8.Valid(b) && !strings.ContainsRune(string(b), 0)
}

// afterText finds the file's content right after the run's last change.
func (r *Runner) afterText(def *watchers.Definition, dir string, fc *fileChange, undone bool, tools []dispatch.Record) (*string, string) {
	want := fc.last.After.Hash
	if want == "" {
		return nil, "the run recorded no content hash for it"
	}
	if !undone && !fc.movedAway && filepath.IsLocal(fc.path) && def.Path != "" {
		// The hash check means only what the run wrote is ever shown,
		// whatever now lies at the path.
		if b, _ := readText(filepath.Join(def.Path, fc.path)); b != nil && contentHash(b) == want {
			s := string(b)
			return &s, ""
		}
	}
	// Replay the run's own call on the content it replaced.
	prev, _ := readBackup(dir, fc.last.Backup, fc.last.Before.Size)
	for _, t := range tools {
		var a struct {
			Old     *string `json:"old"`
			New     *string `json:"new"`
			Content *string `json:"content"`
		}
		if json.Unmarshal(t.Args, &a) != nil {
			continue
		}
		var cand string
		switch {
		case t.Name == "file_edit" && fc.last.Op == sandbox.OpEdit && prev != nil && a.Old != nil && a.New != nil &&
			*a.Old != "" && strings.Count(*prev, *a.Old) == 1:
			cand = strings.Replace(*prev, *a.Old, *a.New, 1)
		case t.Name == "file_write" && fc.last.Op == sandbox.OpWrite && a.Content != nil:
			cand = *a.Content
		default:
			continue
		}
		if contentHash([]byte(cand)) == want {
			if len(cand) > MaxDiffFileBytes {
				return nil, fmt.Sprintf("too large to show (%d bytes; the viewer shows files up to %d KiB)", len(cand), MaxDiffFileBytes>>10)
			}
			if !isText([]byte(cand)) {
				return nil, "not a text file"
			}
			return &cand, ""
		}
	}
	if undone {
		return nil, "the run was undone and its new content cannot be rebuilt from its records"
	}
	return nil, "the file has changed since the run"
}

// toolCalls returns the successful write and edit calls of the run.
func (r *Runner) toolCalls(def *watchers.Definition, runID string) []dispatch.Record {
	runs, _ := dispatch.ReadHistory(r.history(def.ID).Path())
	var out []dispatch.Record
	for _, ru := range runs {
		if ru.ID != runID {
			continue
		}
		for _, rec := range ru.Records {
			if rec.Type == dispatch.RecTool && !rec.Error && (rec.Name == "file_edit" || rec.Name == "file_write") {
				out = append(out, rec)
			}
		}
	}
	return out
}
