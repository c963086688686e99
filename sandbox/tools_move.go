//go:build unix

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

type fromTo struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// transfer holds the resolved source and destination of a move or copy.
type transfer struct {
	src, dst       string
	srcfd, dstfd   int // dstfd is -1 when a dry run plans its parent
	sbase, dbase   string
	before, toMeta Meta
}

func (t *transfer) close() {
	if t.srcfd >= 0 {
		unix.Close(t.srcfd)
	}
	if t.dstfd >= 0 {
		unix.Close(t.dstfd)
	}
}

// prepareTransfer resolves from/to for file_move and file_copy, creating
// (or planning) missing destination parents. It refuses to replace
// anything.
func (b *Box) prepareTransfer(tool string, raw json.RawMessage) (*transfer, error) {
	var a fromTo
	if err := decode(tool, raw, &a); err != nil {
		return nil, err
	}
	src, err := b.rel(tool, "from", a.From, true)
	if err != nil {
		return nil, err
	}
	if src == "" {
		return nil, toolErrf("%s cannot take the watched folder itself as \"from\"", tool)
	}
	dst, err := b.rel(tool, "to", a.To, true)
	if err != nil {
		return nil, err
	}
	t := &transfer{src: src, srcfd: -1, dstfd: -1}
	if t.srcfd, t.sbase, err = b.fs.openParent(src); err != nil {
		return nil, err
	}
	if err := b.fs.refuseHolder(t.srcfd, t.sbase); err != nil {
		t.close()
		return nil, describeErr(src, err)
	}
	if t.before, err = metaAt(t.srcfd, t.sbase, true); err != nil {
		t.close()
		return nil, describeErr(src, err)
	}
	if !t.before.Exists {
		t.close()
		return nil, describeErr(src, unix.ENOENT)
	}
	if err := b.checkLinks(src, t.before); err != nil {
		t.close()
		return nil, err
	}
	// an existing folder as destination: the entry goes into it
	if fd, err := b.fs.openDir(dst); err == nil {
		unix.Close(fd)
		dst = joinRel(dst, t.sbase)
	} else if errors.Is(err, unix.EXDEV) || errors.Is(err, errTendOwn) {
		t.close()
		return nil, describeErr(dst, err)
	}
	t.dst = dst
	if dst == src {
		t.close()
		return nil, toolErrf("%q and %q are the same entry", src, dst)
	}
	if t.before.Kind == "dir" && within(dst, src) {
		t.close()
		return nil, toolErrf("cannot put folder %q inside itself (%q)", src, dst)
	}
	parent, dbase := splitRel(dst)
	t.dbase = dbase
	if t.dstfd, _, err = b.mkdirAll(parent); err != nil {
		t.close()
		return nil, err
	}
	if t.dstfd >= 0 {
		if err := b.refuseEntry(t.dstfd, dbase, dst); err != nil {
			t.close()
			return nil, err
		}
		if t.toMeta, err = metaAt(t.dstfd, dbase, false); err != nil {
			t.close()
			return nil, describeErr(dst, err)
		}
	}
	if t.toMeta.Exists {
		t.close()
		return nil, existsErr(tool, dst, t.toMeta)
	}
	return t, nil
}

func existsErr(tool, dst string, m Meta) error {
	return toolErrf("%q already exists (a %s); %s never replaces an existing entry: choose another name, or first move the existing one away or delete it (file_delete moves it to the trash)", dst, kindName(m.Kind), tool)
}

func (b *Box) fileMove(_ context.Context, raw json.RawMessage) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, err := b.prepareTransfer("file_move", raw)
	if err != nil {
		return "", err
	}
	defer t.close()
	if b.opts.DryRun {
		b.record(Effect{Op: OpMove, Path: t.src, To: t.dst, Before: t.before, After: t.before, ToBefore: t.toMeta})
		return fmt.Sprintf("dry run: would move %s to %s (nothing was changed)", shown(t.src), shown(t.dst)), nil
	}
	var merr error
	_, err = b.step(Effect{Op: OpMove, Path: t.src, To: t.dst, Before: t.before, ToBefore: t.toMeta}, t.before,
		fmt.Sprintf("file_move of %q to %q", t.src, t.dst), func(e Effect) (Effect, error) {
			if err := renameNoReplace(t.srcfd, t.sbase, t.dstfd, t.dbase); err != nil {
				return e, err
			}
			e.After, merr = metaAt(t.dstfd, t.dbase, true)
			return e, nil
		})
	if errors.Is(err, unix.EXDEV) {
		return "", toolErrf("cannot move %q to %q: they are on different file systems; copy it with file_copy, then delete the original", t.src, t.dst)
	}
	if err := transferErr("file_move", t, err, merr); err != nil {
		return "", err
	}
	return fmt.Sprintf("moved %s to %s", shown(t.src), shown(t.dst)), nil
}

func (b *Box) fileCopy(_ context.Context, raw json.RawMessage) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, err := b.prepareTransfer("file_copy", raw)
	if err != nil {
		return "", err
	}
	defer t.close()
	if b.opts.DryRun {
		after := t.before
		b.record(Effect{Op: OpCopy, Path: t.src, To: t.dst, Before: t.before, After: after, ToBefore: t.toMeta})
		return fmt.Sprintf("dry run: would copy %s to %s (nothing was changed)", shown(t.src), shown(t.dst)), nil
	}
	if err := checkFits(t.srcfd, t.sbase, t.dstfd, shown(t.src)); err != nil {
		return "", describeErr(t.src, err)
	}
	var merr error
	_, err = b.step(Effect{Op: OpCopy, Path: t.src, To: t.dst, Before: t.before, ToBefore: t.toMeta}, t.before,
		fmt.Sprintf("file_copy of %q to %q", t.src, t.dst), func(e Effect) (Effect, error) {
			if err := copyTreeAt(t.srcfd, t.sbase, t.dstfd, t.dbase, copyOpts{refuseLinked: !b.opts.AllowHardLinks}); err != nil {
				if !errors.Is(err, unix.EEXIST) {
					if m, _ := metaAt(t.dstfd, t.dbase, false); m.Exists && m.Kind == "dir" {
						removeTreeAt(t.dstfd, t.dbase) // a half-made folder copy of ours
					}
				}
				return e, err
			}
			e.After, merr = metaAt(t.dstfd, t.dbase, true)
			return e, nil
		})
	if err := transferErr("file_copy", t, err, merr); err != nil {
		return "", err
	}
	return fmt.Sprintf("copied %s to %s", shown(t.src), shown(t.dst)), nil
}

// transferErr turns what a move or copy step returned into the error the
// model reads: err from the step itself, merr from reading the result.
func transferErr(op string, t *transfer, err, merr error) error {
	var le *LedgerError
	switch {
	case err == nil && merr != nil:
		return describeErr(t.dst, merr)
	case err == nil:
		return nil
	case errors.As(err, &le):
		return le
	case errors.Is(err, unix.EEXIST) || errors.Is(err, unix.ENOTEMPTY):
		return existsErr(op, t.dst, Meta{Kind: "file"})
	default:
		return describeErr(t.src, err)
	}
}

func (b *Box) fileDelete(_ context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		Path string `json:"path"`
	}
	if err := decode("file_delete", raw, &a); err != nil {
		return "", err
	}
	rel, err := b.rel("file_delete", "path", a.Path, true)
	if err != nil {
		return "", err
	}
	if rel == "" {
		return "", toolErrf("file_delete cannot delete the watched folder itself")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	dirfd, base, before, err := b.openExisting(rel)
	if err != nil {
		return "", err
	}
	defer unix.Close(dirfd)
	if err := b.checkLinks(rel, before); err != nil {
		return "", err
	}
	if err := b.fs.refuseHolder(dirfd, base); err != nil {
		return "", describeErr(rel, err)
	}
	if b.opts.DryRun {
		b.record(Effect{Op: OpDelete, Path: rel, Before: before})
		return fmt.Sprintf("dry run: would move %s to the trash (nothing was changed)", shown(rel)), nil
	}
	_, err = b.step(Effect{Op: OpDelete, Path: rel, Before: before}, Meta{}, fmt.Sprintf("file_delete of %q", rel),
		func(e Effect) (Effect, error) {
			entry, err := b.trash.Put(dirfd, base, b.fs.abs(rel), b.opts.now())
			if err != nil {
				return e, toolErrf("could not move %q to the trash, so it was not deleted: %v", rel, err)
			}
			e.TrashPath, e.Trashed, e.TrashCopied = entry.Path, &entry.Meta, entry.Copied
			if entry.Copied && before.Kind == "file" {
				// A second copy for undo; the trash entry already is one,
				// so a failed backup does not undo the delete.
				e.Backup, _ = b.backupPath(entry.Path)
			}
			return e, nil
		})
	if err != nil {
		return "", describeErr(rel, err)
	}
	return fmt.Sprintf("moved %s to the trash", shown(rel)), nil
}

// backupPath copies a file outside the folder (a trash entry) into the
// backup folder.
func (b *Box) backupPath(p string) (string, error) {
	dir, err := unix.Open(filepath.Dir(p), oPath|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", fmt.Errorf("backing up %s: %w", p, err)
	}
	defer unix.Close(dir)
	return b.backup(dir, filepath.Base(p))
}
