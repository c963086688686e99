//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// UndoReport says what an undo restored, or why it refused.
type UndoReport struct {
	Restored  []string // paths put back, in the order undone
	Conflicts []string // human-readable: what differs since the run
	Notes     []string // human-readable: what could not be restored exactly
}

// Undo reverses the ledger's effects on root in reverse order: moves go
// back, replaced or edited content comes back from the backups, deleted
// entries come back from the trash (or a backup), created files and copies
// go to the trash and created folders are removed. It first checks that
// every path the run touched is still as the run left it; if anything
// differs it changes nothing and returns the conflicts with an error.
func Undo(root string, l *Ledger, opts Options) (UndoReport, error) {
	var rep UndoReport
	if l == nil {
		return rep, errors.New("undo: no ledger given")
	}
	var real []Effect
	for _, e := range l.Snapshot() {
		if !e.DryRun {
			real = append(real, e)
		}
	}
	if len(real) == 0 {
		if l.DryRun() {
			return rep, fmt.Errorf("run %s was a dry run: it changed nothing, so there is nothing to undo", l.RunID)
		}
		return rep, nil
	}
	if opts.BackupDir == "" {
		opts.BackupDir = l.BackupDir
	}
	resolved, err := filepath.EvalSymlinks(root)
	if err != nil {
		return rep, fmt.Errorf("undo of run %s: opening folder %s: %w", l.RunID, root, err)
	}
	fs, err := openRoot(resolved)
	if err != nil {
		return rep, fmt.Errorf("undo of run %s: %w", l.RunID, err)
	}
	defer fs.close()
	trash := opts.Trash
	if trash == nil {
		if trash, err = DefaultTrash(resolved); err != nil {
			return rep, fmt.Errorf("undo of run %s: %w", l.RunID, err)
		}
	}
	rep.Conflicts = checkUndo(fs, real, opts.BackupDir, trash)
	if len(rep.Conflicts) > 0 {
		return rep, fmt.Errorf("undo of run %s refused: %d thing(s) changed since the run; nothing was changed", l.RunID, len(rep.Conflicts))
	}
	for i := len(real) - 1; i >= 0; i-- {
		e := real[i]
		p, err := undoOne(fs, e, trash, opts)
		if err == nil {
			if note := linkNote(fs, e); note != "" {
				rep.Notes = append(rep.Notes, note)
			}
		}
		if err != nil {
			return rep, fmt.Errorf("undo of run %s stopped at step %d (%s %s): %w; the steps after it were undone", l.RunID, e.Seq, e.Op, e.Path, err)
		}
		rep.Restored = append(rep.Restored, p)
	}
	return rep, nil
}

// checkUndo lists what stands in the way of undoing effects.
func checkUndo(fs *fsRoot, effects []Effect, backupDir string, trash Trash) []string {
	var out []string
	final := finalStates(effects)
	paths := make([]string, 0, len(final))
	for p := range final {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	removed := map[string]bool{} // entries the undo itself takes away
	for _, e := range effects {
		switch e.Op {
		case OpWrite, OpMkdir:
			if !e.Before.Exists {
				removed[e.Path] = true
			}
		case OpCopy, OpMove:
			removed[e.To] = true
		}
	}
	for _, p := range paths {
		want := final[p].meta
		got, err := metaRel(fs, p, true)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: cannot be checked: %v", p, err))
			continue
		}
		if !sameState(want, got, true) {
			out = append(out, fmt.Sprintf("%s: %s", p, describeChange(want, got)))
			continue
		}
		if want.Exists && want.Kind == "dir" && removed[p] && !final[p].subtree {
			for _, n := range dirNames(fs, p) {
				if !removed[joinRel(p, n)] {
					out = append(out, fmt.Sprintf("%s: contains %q, which this run did not make", p, n))
				}
			}
		}
	}
	for _, e := range effects {
		switch {
		case e.Op == OpDelete:
			got, err := trashedMeta(trash, e)
			if err == nil && got.Exists {
				if diff := trashedDiff(e, got); diff != "" {
					out = append(out, fmt.Sprintf("%s: the entry in the trash (%s) is not the one this run put there: %s; nothing is restored from it", e.Path, e.TrashPath, diff))
				}
				continue
			}
			if e.TrashPath == "" || err != nil || !got.Exists {
				if e.Backup == "" && err != nil {
					out = append(out, fmt.Sprintf("%s: the deleted entry cannot be taken from the trash: %v", e.Path, err))
				} else if e.Backup == "" {
					out = append(out, fmt.Sprintf("%s: the deleted entry is no longer in the trash (%s)", e.Path, e.TrashPath))
				} else if err := checkBackup(backupDir, e.Backup); err != nil {
					out = append(out, fmt.Sprintf("%s: the deleted entry is no longer in the trash (%s) and %v", e.Path, e.TrashPath, err))
				}
			}
		case (e.Op == OpWrite || e.Op == OpEdit) && e.Before.Exists:
			if err := checkBackup(backupDir, e.Backup); err != nil {
				out = append(out, fmt.Sprintf("%s: %v", e.Path, err))
			}
		}
	}
	return out
}

// checkBackup makes sure a backup named by a ledger is a regular file
// directly inside the run's backup folder: a ledger is read back from
// disk, and a name like "../../etc/passwd" must not pull an outside file
// into the watched folder.
func checkBackup(backupDir, name string) error {
	if !validBackupName(name) {
		return fmt.Errorf("the ledger names %q as the backup of its earlier content, which is not a backup name (a plain file name inside %s); the ledger may have been edited", name, backupDir)
	}
	f, err := openBackup(backupDir, name)
	if err != nil {
		return fmt.Errorf("the backup of its earlier content (%s) cannot be used from %s: %v", name, backupDir, err)
	}
	f.Close()
	return nil
}

func validBackupName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

// openBackup opens the backup name inside backupDir without following a
// link and only if it is a regular file.
func openBackup(backupDir, name string) (*os.File, error) {
	if backupDir == "" || !validBackupName(name) {
		return nil, fmt.Errorf("%q is not a backup name", name)
	}
	dfd, err := unix.Open(backupDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	f, err := openFileAt(dfd, name)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, fmt.Errorf("it is missing")
		}
		if errors.Is(err, unix.ELOOP) {
			return nil, fmt.Errorf("it is a symbolic link")
		}
		return nil, err
	}
	return f, nil
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func dirNames(fs *fsRoot, rel string) []string {
	fd, err := fs.open(rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	names, _ := readNames(fd, ".")
	return names
}

// metaRel describes rel inside the root without following its last
// component.
func metaRel(fs *fsRoot, rel string, withHash bool) (Meta, error) {
	dirfd, base, err := fs.openParent(rel)
	if err != nil {
		var te *ToolError
		if errors.As(err, &te) && strings.Contains(te.Msg, "does not exist") {
			return Meta{}, nil
		}
		return Meta{}, err
	}
	defer unix.Close(dirfd)
	return metaAt(dirfd, base, withHash)
}

func describeChange(want, got Meta) string {
	switch {
	case want.Exists && !got.Exists:
		return "was removed since the run"
	case !want.Exists && got.Exists:
		return fmt.Sprintf("a %s appeared there since the run", kindName(got.Kind))
	case want.Kind != got.Kind:
		return fmt.Sprintf("was a %s after the run, is a %s now", kindName(want.Kind), kindName(got.Kind))
	case want.Size != got.Size:
		return fmt.Sprintf("was modified since the run (size %d → %d bytes)", want.Size, got.Size)
	}
	return "was modified since the run"
}

// undoOne reverses one effect and returns the path it restored.
func undoOne(fs *fsRoot, e Effect, trash Trash, opts Options) (string, error) {
	switch e.Op {
	case OpWrite, OpEdit:
		if !e.Before.Exists {
			return e.Path, trashRel(fs, e.Path, trash, opts)
		}
		return e.Path, restoreBackup(fs, e.Path, opts.BackupDir, e.Backup, e.Before, true)
	case OpCopy:
		return e.To, trashRel(fs, e.To, trash, opts)
	case OpMkdir:
		dirfd, base, err := fs.openParent(e.Path)
		if err != nil {
			return e.Path, err
		}
		defer unix.Close(dirfd)
		return e.Path, unix.Unlinkat(dirfd, base, unix.AT_REMOVEDIR)
	case OpMove:
		tofd, tbase, err := fs.openParent(e.To)
		if err != nil {
			return e.Path, err
		}
		defer unix.Close(tofd)
		fromfd, fbase, err := fs.openParent(e.Path)
		if err != nil {
			return e.Path, err
		}
		defer unix.Close(fromfd)
		return e.Path, renameNoReplace(tofd, tbase, fromfd, fbase)
	case OpDelete:
		dirfd, base, err := fs.openParent(e.Path)
		if err != nil {
			return e.Path, err
		}
		defer unix.Close(dirfd)
		if m, err := trashedMeta(trash, e); err == nil && m.Exists {
			return e.Path, trash.Restore(e.TrashPath, dirfd, base)
		}
		return e.Path, restoreBackup(fs, e.Path, opts.BackupDir, e.Backup, e.Before, false)
	}
	return e.Path, fmt.Errorf("unknown effect %q", e.Op)
}

// trashRel moves an entry the run created to the trash.
func trashRel(fs *fsRoot, rel string, trash Trash, opts Options) error {
	dirfd, base, err := fs.openParent(rel)
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	_, err = trash.Put(dirfd, base, fs.abs(rel), opts.now())
	return err
}

// restoreBackup puts the content of backup back at rel with everything
// recorded of before (mode, owner, attributes, modification time); replace
// allows replacing what is there. A file that had several hard links and
// was changed in its inode gets the content back in that inode.
func restoreBackup(fs *fsRoot, rel, backupDir, backup string, before Meta, replace bool) error {
	f, err := openBackup(backupDir, backup)
	if err != nil {
		return fmt.Errorf("opening backup: %w", err)
	}
	defer f.Close()
	dirfd, base, err := fs.openParent(rel)
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	if replace {
		if before.Nlink > 1 && before.Ino != 0 {
			if cur, err := metaAt(dirfd, base, false); err == nil && cur.Kind == "file" && cur.Ino == before.Ino {
				return rewriteInPlace(dirfd, base, before.Ino, f, attrsOf(before))
			}
		}
		return replaceAtAttrs(dirfd, base, f, attrsOf(before))
	}
	return writeNewAtAttrs(dirfd, base, f, attrsOf(before))
}

// linkNote says when an undone effect brought back a file that had other
// hard links as a separate file (from a backup, or a trash on another
// file system): its content is right, but the other names no longer share
// it.
func linkNote(fs *fsRoot, e Effect) string {
	if e.Before.Kind != "file" || e.Before.Nlink < 2 || e.Before.Ino == 0 {
		return ""
	}
	switch e.Op {
	case OpWrite, OpEdit, OpDelete:
	default:
		return ""
	}
	cur, err := metaRel(fs, e.Path, false)
	if err != nil || !cur.Exists || cur.Ino == e.Before.Ino {
		return ""
	}
	return fmt.Sprintf("%s was restored as a separate file: it had %d hard links (names), and the other %d no longer share its content", e.Path, e.Before.Nlink, e.Before.Nlink-1)
}

// trashedMeta describes what lies at the delete's trash path now.
func trashedMeta(trash Trash, e Effect) (Meta, error) {
	if e.TrashPath == "" {
		return Meta{}, nil
	}
	return trash.Stat(e.TrashPath)
}

// trashedDiff says how the entry now in the trash differs from the one
// the delete put there ("" when it is the same). Ledgers written before
// Trashed was recorded are checked against the entry as it was deleted.
func trashedDiff(e Effect, got Meta) string {
	want, sameInode := e.Before, false
	if e.Trashed != nil {
		want, sameInode = *e.Trashed, true
	}
	switch {
	case want.Kind != got.Kind:
		return fmt.Sprintf("a %s was put there, a %s is there now", kindName(want.Kind), kindName(got.Kind))
	case sameInode && want.Ino != 0 && want.Ino != got.Ino:
		return fmt.Sprintf("it was replaced by another entry (inode %d, was %d)", got.Ino, want.Ino)
	case want.Kind == "dir":
		return ""
	case want.Size != got.Size:
		return fmt.Sprintf("its size changed from %d to %d bytes", want.Size, got.Size)
	case want.MtimeNs != got.MtimeNs:
		return "its modification time changed"
	case want.Hash != "" && got.Hash != "" && want.Hash != got.Hash:
		return "its content changed"
	}
	return ""
}
