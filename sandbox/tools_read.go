//go:build unix

package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/tend-agent/tend/content"
	"github.com/tend-agent/tend/internal/safetext"
)

// Limits from the design.
const (
	readMaxChars   = 15000
	treeMaxDepth   = 3
	treeMaxEntries = 300
	treeMaxPerDir  = 20
)

type pathArg struct {
	Path string `json:"path"`
}

func (b *Box) fileRead(ctx context.Context, raw json.RawMessage) (string, error) {
	var a pathArg
	if err := decode("file_read", raw, &a); err != nil {
		return "", err
	}
	rel, err := b.rel("file_read", "path", a.Path, true)
	if err != nil {
		return "", err
	}
	fd, err := b.fs.open(rel, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return "", describeErr(rel, err)
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "", describeErr(rel, err)
	}
	switch kindOf(uint32(st.Mode)) {
	case "dir":
		return b.listing(ctx, rel)
	case "file":
		if !b.opts.AllowHardLinks && st.Nlink > 1 {
			return "", hardLinkErr(rel, uint64(st.Nlink))
		}
	default:
		return "", toolErrf("%q is a special file and cannot be read", rel)
	}
	if _, text := sniff(f); !text {
		head := make([]byte, 64)
		n, _ := f.ReadAt(head, 0)
		if mime := imageMIME(head[:n]); mime != "" && b.canAttach(ctx) {
			return b.readImage(ctx, rel, f, st.Size, mime) // image.go: the picture itself
		}
		return b.readExtracted(ctx, f, rel, &st), nil
	}
	data, err := io.ReadAll(io.LimitReader(f, readMaxChars*utf8.UTFMax+1))
	if err != nil {
		return "", describeErr(rel, err)
	}
	if isBinary(data) {
		return fmt.Sprintf("%s is a binary file of %d bytes; its content is not shown", shown(rel), st.Size), nil
	}
	text := string(data)
	n, cut := 0, -1
	for i := range text {
		if n == readMaxChars {
			cut = i
			break
		}
		n++
	}
	if cut < 0 && int64(len(data)) >= st.Size {
		return text, nil
	}
	if cut < 0 {
		cut = len(text)
	}
	shownBytes := int64(cut)
	return fmt.Sprintf("%s\n[… cut: showed the first %d characters (%d of %d bytes); %d bytes not shown. file_read shows at most %d characters; use file_search with content true to find a part]",
		text[:cut], readMaxChars, shownBytes, st.Size, st.Size-shownBytes, readMaxChars), nil
}

// readExtracted is file_read of a document, photo, recording or archive:
// a line saying what it is, its metadata, then its text or listing.
func (b *Box) readExtracted(ctx context.Context, f *os.File, rel string, st *unix.Stat_t) string {
	r := b.extract(ctx, f, rel, st)
	out := describeContent(rel, r)
	if r.Failed != "" {
		return out
	}
	text := strings.TrimSpace(r.Text)
	if text == "" {
		switch {
		case strings.HasPrefix(r.MIME, "image/"):
			return out + noVisionNote + "\n"
		case strings.HasPrefix(r.MIME, "audio/"), strings.HasPrefix(r.MIME, "video/"):
			return out + "(this is a recording; only the facts above are known)\n"
		case len(r.Meta) == 0:
			return out + "(its content cannot be shown as text)\n"
		}
		return out + "(no text was found in it)\n"
	}
	return out + "\n" + cutText(text, "text read from this "+r.Kind)
}

// isBinary guesses from a NUL byte in the first 8000 bytes, like git.
func isBinary(data []byte) bool {
	if len(data) > 8000 {
		data = data[:8000]
	}
	for _, c := range data {
		if c == 0 {
			return true
		}
	}
	return false
}

// listing describes the entries of one folder (file_read on a folder).
func (b *Box) listing(ctx context.Context, rel string) (string, error) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s is a folder; its entries:\n", shown(rel))
	n := 0
	err := b.walk(ctx, rel, 1, func(e walkEntry) bool {
		n++
		if n > treeMaxEntries {
			return false
		}
		fmt.Fprintf(&sb, "%s\n", entryLine(e))
		return true
	})
	if err != nil {
		return "", err
	}
	if n == 0 {
		sb.WriteString("(empty)\n")
	} else if n > treeMaxEntries {
		fmt.Fprintf(&sb, "… more entries not shown\n")
	}
	return sb.String(), nil
}

func entryLine(e walkEntry) string {
	name := safetext.Name(e.name)
	switch e.meta.Kind {
	case "dir":
		return name + "/"
	case "symlink":
		return name + " -> " + safetext.Name(e.target)
	case "file":
		return fmt.Sprintf("%s (%s)", name, content.HumanSize(e.meta.Size))
	}
	return name + " (special file)"
}

func (b *Box) fileTree(ctx context.Context, raw json.RawMessage) (string, error) {
	var a pathArg
	if err := decode("file_tree", raw, &a); err != nil {
		return "", err
	}
	rel, err := b.rel("file_tree", "path", a.Path, false)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s/\n", shown(rel))
	count, truncated := 0, false
	var tree func(dirfd int, real string, depth int) error
	tree = func(dirfd int, real string, depth int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		names, err := readNames(dirfd, ".")
		if err != nil {
			return err
		}
		shownNames := names[:0]
		for _, n := range names {
			if !b.fs.hidden(real, n) {
				shownNames = append(shownNames, n)
			}
		}
		names = shownNames
		indent := strings.Repeat("  ", depth+1)
		for i, name := range names {
			if count >= treeMaxEntries {
				truncated = true
				return nil
			}
			if i == treeMaxPerDir {
				fmt.Fprintf(&sb, "%s+%d more\n", indent, len(names)-i)
				count++
				break
			}
			e := statEntry(dirfd, name)
			fmt.Fprintf(&sb, "%s%s\n", indent, entryLine(e))
			count++
			if e.meta.Kind == "dir" && depth+1 < treeMaxDepth {
				cfd, err := openDirAt(dirfd, name)
				if err != nil {
					continue
				}
				err = tree(cfd, joinRel(real, name), depth+1)
				unix.Close(cfd)
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
	fd, err := b.openListable(rel)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	start, err := b.listedReal(fd, rel)
	if err != nil {
		return "", err
	}
	if err := tree(fd, start, 0); err != nil {
		return "", describeErr(rel, err)
	}
	if truncated {
		fmt.Fprintf(&sb, "… the tree was cut at %d entries; call file_tree on a subfolder to see more\n", treeMaxEntries)
	}
	return sb.String(), nil
}

func (b *Box) fileMetadata(ctx context.Context, raw json.RawMessage) (string, error) {
	var a pathArg
	if err := decode("file_metadata", raw, &a); err != nil {
		return "", err
	}
	rel, err := b.rel("file_metadata", "path", a.Path, false)
	if err != nil {
		return "", err
	}
	var e walkEntry
	if rel == "" {
		var st unix.Stat_t
		if err := unix.Fstat(b.fs.fd, &st); err != nil {
			return "", describeErr(rel, err)
		}
		e = walkEntry{name: ".", meta: metaFromStat(&st)}
	} else {
		dirfd, base, err := b.fs.openParent(rel)
		if err != nil {
			return "", err
		}
		defer unix.Close(dirfd)
		e = statEntry(dirfd, base)
		if e.err != nil {
			return "", describeErr(rel, e.err)
		}
		if !e.meta.Exists {
			return "", describeErr(rel, unix.ENOENT)
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "path: %s\nkind: %s\n", shown(rel), kindName(e.meta.Kind))
	if e.meta.Kind != "dir" {
		fmt.Fprintf(&sb, "size: %d bytes (%s)\n", e.meta.Size, content.HumanSize(e.meta.Size))
	}
	fmt.Fprintf(&sb, "modified: %s\n", time.Unix(0, e.meta.MtimeNs).Format(time.RFC3339))
	fmt.Fprintf(&sb, "mode: %s (%04o)\n", fs.FileMode(e.meta.Mode&0o777).String(), e.meta.Mode)
	if e.meta.Kind == "symlink" {
		fmt.Fprintf(&sb, "target: %s\n", safetext.Name(e.target))
	}
	if e.meta.Kind == "file" && rel != "" {
		sb.WriteString(b.contentMetadata(ctx, rel))
	}
	return sb.String(), nil
}

// contentMetadata is the type of the file rel and what its content says
// about it (date taken, page count, duration...), one fact a line. A file
// the tools may not read (a hard link) gets no such lines.
func (b *Box) contentMetadata(ctx context.Context, rel string) string {
	dirfd, base, err := b.fs.openParent(rel)
	if err != nil {
		return ""
	}
	f, err := b.openContent(dirfd, base, rel)
	unix.Close(dirfd)
	if err != nil {
		return ""
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return ""
	}
	mime, text := sniff(f)
	if text {
		return fmt.Sprintf("type: %s\n", mime)
	}
	r := b.extract(ctx, f, rel, &st)
	base2, _, _ := strings.Cut(r.MIME, ";")
	out := fmt.Sprintf("type: %s (%s)\n", r.Kind, base2)
	if r.Failed != "" {
		return out + "content: " + r.Failed + "\n"
	}
	for _, m := range r.Meta {
		out += fmt.Sprintf("%s: %s\n", m.Name, m.Value)
	}
	return out
}
