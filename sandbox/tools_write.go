//go:build unix

package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"golang.org/x/sys/unix"
)

// maxEditSize is the largest file file_edit works on.
const maxEditSize = 64 << 20

func (b *Box) fileWrite(_ context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		Path      string  `json:"path"`
		Content   *string `json:"content"`
		Overwrite bool    `json:"overwrite"`
	}
	if err := decode("file_write", raw, &a); err != nil {
		return "", err
	}
	rel, err := b.rel("file_write", "path", a.Path, true)
	if err != nil {
		return "", err
	}
	if rel == "" {
		return "", toolErrf("file_write needs a file path, not the watched folder itself")
	}
	if a.Content == nil {
		return "", toolErrf("file_write needs \"content\" (the full text of the file): %s", argShape["file_write"])
	}
	content := *a.Content
	b.mu.Lock()
	defer b.mu.Unlock()
	parent, base := splitRel(rel)
	dirfd, _, err := b.mkdirAll(parent)
	if err != nil {
		return "", err
	}
	if dirfd >= 0 {
		defer unix.Close(dirfd)
		if err := b.refuseEntry(dirfd, base, rel); err != nil {
			return "", err
		}
	}
	var before Meta
	if dirfd >= 0 {
		if before, err = metaAt(dirfd, base, true); err != nil {
			return "", describeErr(rel, err)
		}
	}
	if before.Exists {
		if !a.Overwrite {
			return "", toolErrf("%q already exists (%s, %d bytes); file_write does not replace files unless you pass \"overwrite\": true (the old content is backed up), or use file_edit to change part of it", rel, before.Kind, before.Size)
		}
		if before.Kind != "file" {
			return "", toolErrf("%q is a %s, not a regular file; it cannot be overwritten", rel, kindName(before.Kind))
		}
		if err := b.checkLinks(rel, before); err != nil {
			return "", err
		}
	}
	predicted := Meta{Exists: true, Kind: "file", Size: int64(len(content)), Mode: 0o644}
	if before.Exists {
		predicted.Mode = newContentAttrs(before).Mode
	}
	if b.opts.DryRun {
		b.record(Effect{Op: OpWrite, Path: rel, Before: before, After: predicted})
		return fmt.Sprintf("dry run: would write %d bytes to %s%s (nothing was changed)", len(content), shown(rel), replacedNote(before)), nil
	}
	e := Effect{Op: OpWrite, Path: rel, Before: before}
	if before.Exists {
		if e.Backup, err = b.backup(dirfd, base); err != nil {
			return "", describeErr(rel, err)
		}
	}
	want := predicted
	want.Hash = hashText(content)
	var merr error
	_, err = b.step(e, want, fmt.Sprintf("file_write of %q", rel), func(e Effect) (Effect, error) {
		var err error
		if before.Exists {
			err = b.writeOver(dirfd, base, strings.NewReader(content), before)
		} else {
			err = writeNewAt(dirfd, base, strings.NewReader(content), 0o644, 0)
		}
		if err == nil {
			e.After, merr = metaAt(dirfd, base, true)
		}
		return e, err
	})
	if err == nil {
		err = merr
	}
	if err != nil {
		return "", describeErr(rel, err)
	}
	return fmt.Sprintf("wrote %d bytes to %s%s", len(content), shown(rel), replacedNote(before)), nil
}

func replacedNote(before Meta) string {
	if before.Exists {
		return fmt.Sprintf(" (replaced the old %d bytes, which are backed up)", before.Size)
	}
	return ""
}

func kindName(k string) string {
	switch k {
	case "dir":
		return "folder"
	case "symlink":
		return "symbolic link"
	case "other":
		return "special file"
	}
	return k
}

func (b *Box) fileEdit(_ context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		Path string  `json:"path"`
		Old  string  `json:"old"`
		New  *string `json:"new"`
	}
	if err := decode("file_edit", raw, &a); err != nil {
		return "", err
	}
	rel, err := b.rel("file_edit", "path", a.Path, true)
	if err != nil {
		return "", err
	}
	if a.Old == "" {
		return "", toolErrf("file_edit needs a non-empty \"old\": the exact text to replace (to write a whole file use file_write)")
	}
	if a.New == nil {
		return "", toolErrf("file_edit needs \"new\": the replacement text (use \"\" to remove the old text)")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	dirfd, base, before, err := b.openExisting(rel)
	if err != nil {
		return "", err
	}
	defer unix.Close(dirfd)
	if before.Kind != "file" {
		return "", toolErrf("%q is a %s, not a regular file; file_edit changes text files", rel, kindName(before.Kind))
	}
	if err := b.checkLinks(rel, before); err != nil {
		return "", err
	}
	if before.Size > maxEditSize {
		return "", toolErrf("%q is %d bytes, too large for file_edit (at most %d)", rel, before.Size, maxEditSize)
	}
	f, err := b.openContent(dirfd, base, rel)
	if err != nil {
		return "", describeErr(rel, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxEditSize+1))
	f.Close()
	if err != nil {
		return "", describeErr(rel, err)
	}
	text := string(data)
	switch n := strings.Count(text, a.Old); {
	case n == 0:
		return "", toolErrf("the text in \"old\" was not found in %q; read the file and copy the exact text, including spaces and line breaks", rel)
	case n > 1:
		return "", toolErrf("the text in \"old\" occurs %d times in %q; include more of the surrounding text so it matches exactly once", n, rel)
	}
	updated := strings.Replace(text, a.Old, *a.New, 1)
	if b.opts.DryRun {
		after := before
		after.Size, after.Hash = int64(len(updated)), ""
		b.record(Effect{Op: OpEdit, Path: rel, Before: before, After: after})
		return fmt.Sprintf("dry run: would edit %s (nothing was changed)", shown(rel)), nil
	}
	e := Effect{Op: OpEdit, Path: rel, Before: before}
	if e.Backup, err = b.backup(dirfd, base); err != nil {
		return "", describeErr(rel, err)
	}
	want := Meta{Exists: true, Kind: "file", Size: int64(len(updated)), Mode: newContentAttrs(before).Mode, Hash: hashText(updated)}
	var merr error
	_, err = b.step(e, want, fmt.Sprintf("file_edit of %q", rel), func(e Effect) (Effect, error) {
		if err := b.writeOver(dirfd, base, strings.NewReader(updated), before); err != nil {
			return e, err
		}
		e.After, merr = metaAt(dirfd, base, true)
		return e, nil
	})
	if err == nil {
		err = merr
	}
	if err != nil {
		return "", describeErr(rel, err)
	}
	return fmt.Sprintf("edited %s: replaced %d characters with %d", shown(rel), len([]rune(a.Old)), len([]rune(*a.New))), nil
}

func (b *Box) dirCreate(_ context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		Path string `json:"path"`
	}
	if err := decode("dir_create", raw, &a); err != nil {
		return "", err
	}
	rel, err := b.rel("dir_create", "path", a.Path, true)
	if err != nil {
		return "", err
	}
	if rel == "" {
		return "the watched folder already exists; nothing to do", nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	fd, made, err := b.mkdirAll(rel)
	if err != nil {
		return "", err
	}
	if fd >= 0 {
		unix.Close(fd)
	}
	switch {
	case len(made) == 0:
		return fmt.Sprintf("folder %s already exists; nothing to do", shown(rel)), nil
	case b.opts.DryRun:
		return fmt.Sprintf("dry run: would create %s (nothing was changed)", shownList(made)), nil
	}
	return fmt.Sprintf("created %s", shownList(made)), nil
}
