//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// TrashEntry is where a trashed entry went.
type TrashEntry struct {
	Path   string // absolute path of the entry inside the trash
	Copied bool   // the trash is on another file system: the entry was copied, then removed
	Meta   Meta   // the entry as it lies in the trash (inode, size, time, hash)
}

// Trash receives deleted entries and gives them back on undo.
type Trash interface {
	// Put moves the entry name inside the directory dirfd, whose absolute
	// path was origPath, into the trash.
	Put(dirfd int, name, origPath string, now time.Time) (TrashEntry, error)
	// Restore moves the trashed entry at trashPath back to name inside
	// dirfd, never replacing anything there.
	Restore(trashPath string, dirfd int, name string) error
	// Stat describes the trashed entry at trashPath (with its content
	// hash), so undo can check it is the one Put left there.
	Stat(trashPath string) (Meta, error)
}

// FreedesktopTrash is a trash following the freedesktop.org Trash
// specification: entries in Dir/files, a NAME.trashinfo per entry in
// Dir/info with Path= and DeletionDate=.
type FreedesktopTrash struct {
	Dir    string // e.g. $XDG_DATA_HOME/Trash
	TopDir string // for a $topdir/.Trash-$uid trash: Path= is relative to it
}

// DirTrash is a plain trash folder without info files, like macOS ~/.Trash.
// Name collisions become "name 2.ext", "name 3.ext", ….
type DirTrash struct {
	Dir string
}

// Put implements Trash.
func (t FreedesktopTrash) Put(dirfd int, name, origPath string, now time.Time) (TrashEntry, error) {
	files, info, err := t.open()
	if err != nil {
		return TrashEntry{}, err
	}
	defer unix.Close(files)
	defer unix.Close(info)
	recorded := origPath
	if t.TopDir != "" {
		if r, err := filepath.Rel(t.TopDir, origPath); err == nil && !strings.HasPrefix(r, "..") {
			recorded = r
		}
	}
	body := fmt.Sprintf("[Trash Info]\nPath=%s\nDeletionDate=%s\n",
		(&url.URL{Path: recorded}).EscapedPath(), now.Local().Format("2006-01-02T15:04:05"))
	filesDir := filepath.Join(t.Dir, "files")
	for i := 1; i < 10000; i++ {
		cand := trashName(name, i, ".")
		infoName := cand + ".trashinfo"
		fd, err := unix.Openat(info, infoName, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return TrashEntry{}, fmt.Errorf("writing trash info %s: %w", filepath.Join(t.Dir, "info", infoName), err)
		}
		f := os.NewFile(uintptr(fd), infoName)
		_, werr := f.WriteString(body)
		if werr == nil {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			unix.Unlinkat(info, infoName, 0)
			return TrashEntry{}, fmt.Errorf("writing trash info %s: %w", filepath.Join(t.Dir, "info", infoName), werr)
		}
		entry, err := moveInto(dirfd, name, files, filesDir, cand)
		if errors.Is(err, unix.EEXIST) {
			unix.Unlinkat(info, infoName, 0) // a stray entry without info: try the next name
			continue
		}
		if err != nil {
			unix.Unlinkat(info, infoName, 0)
			return TrashEntry{}, err
		}
		return entry, nil
	}
	return TrashEntry{}, fmt.Errorf("no free name for %s in trash %s", name, t.Dir)
}

// Restore implements Trash.
func (t FreedesktopTrash) Restore(trashPath string, dirfd int, name string) error {
	base, err := entryName(trashPath, filepath.Join(t.Dir, "files"))
	if err != nil {
		return err
	}
	files, info, err := t.open()
	if err != nil {
		return err
	}
	defer unix.Close(files)
	defer unix.Close(info)
	if err := moveOutOf(files, base, trashPath, dirfd, name); err != nil {
		return err
	}
	if err := unix.Unlinkat(info, base+".trashinfo", 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("removing trash info of %s: %w", trashPath, err)
	}
	return nil
}

// Stat implements Trash.
func (t FreedesktopTrash) Stat(trashPath string) (Meta, error) {
	base, err := entryName(trashPath, filepath.Join(t.Dir, "files"))
	if err != nil {
		return Meta{}, err
	}
	files, info, err := t.open()
	if err != nil {
		return Meta{}, err
	}
	defer unix.Close(files)
	defer unix.Close(info)
	return metaAt(files, base, true)
}

// Put implements Trash.
func (t DirTrash) Put(dirfd int, name, origPath string, now time.Time) (TrashEntry, error) {
	dfd, err := t.open()
	if err != nil {
		return TrashEntry{}, err
	}
	defer unix.Close(dfd)
	for i := 1; i < 10000; i++ {
		entry, err := moveInto(dirfd, name, dfd, t.Dir, trashName(name, i, " "))
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		return entry, err
	}
	return TrashEntry{}, fmt.Errorf("no free name for %s in trash %s", name, t.Dir)
}

// Restore implements Trash.
func (t DirTrash) Restore(trashPath string, dirfd int, name string) error {
	base, err := entryName(trashPath, t.Dir)
	if err != nil {
		return err
	}
	dfd, err := t.open()
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	return moveOutOf(dfd, base, trashPath, dirfd, name)
}

// Stat implements Trash.
func (t DirTrash) Stat(trashPath string) (Meta, error) {
	base, err := entryName(trashPath, t.Dir)
	if err != nil {
		return Meta{}, err
	}
	dfd, err := t.open()
	if err != nil {
		return Meta{}, err
	}
	defer unix.Close(dfd)
	return metaAt(dfd, base, true)
}

func (t DirTrash) open() (int, error) {
	if err := os.MkdirAll(t.Dir, 0o700); err != nil {
		return -1, fmt.Errorf("preparing trash %s: %w", t.Dir, err)
	}
	return openOwnDir(unix.AT_FDCWD, t.Dir, false)
}

// entryName checks that trashPath (read back from a ledger) names an entry
// directly inside the trash folder dir, and returns its name there.
func entryName(trashPath, dir string) (string, error) {
	base := filepath.Base(trashPath)
	if filepath.Dir(trashPath) != filepath.Clean(dir) || base == "." || base == ".." || base == "/" {
		return "", fmt.Errorf("%s is not an entry of the trash %s; the ledger may have been edited", trashPath, dir)
	}
	return base, nil
}

// trashName is name for i == 1, else name with " i" or ".i" before its
// extension.
func trashName(name string, i int, sep string) string {
	if i == 1 {
		return name
	}
	ext := filepath.Ext(name)
	if ext == name {
		ext = ""
	}
	return fmt.Sprintf("%s%s%d%s", strings.TrimSuffix(name, ext), sep, i, ext)
}

// moveInto moves name (inside dirfd) to cand inside the trash folder tfd
// (dir is its path), without replacing; across file systems it copies,
// then removes the original.
func moveInto(dirfd int, name string, tfd int, dir, cand string) (TrashEntry, error) {
	entry := TrashEntry{Path: filepath.Join(dir, cand)}
	err := renameNoReplace(dirfd, name, tfd, cand)
	if errors.Is(err, unix.EXDEV) {
		if err := copyTreeAt(dirfd, name, tfd, cand, copyOpts{keepTimes: true}); err != nil {
			removeTreeAt(tfd, cand)
			return TrashEntry{}, fmt.Errorf("copying %s into trash %s: %w", name, dir, err)
		}
		if err := removeTreeAt(dirfd, name); err != nil {
			return TrashEntry{}, fmt.Errorf("removing %s after copying it into trash %s: %w", name, dir, err)
		}
		entry.Copied = true
	} else if err != nil {
		return TrashEntry{}, err
	}
	m, err := metaAt(tfd, cand, true)
	if err != nil {
		return TrashEntry{}, fmt.Errorf("reading %s back from the trash: %w", entry.Path, err)
	}
	entry.Meta = m
	return entry, nil
}

// moveOutOf moves the entry base of the trash folder tfd (trashPath, for
// messages) back to name inside dirfd, never replacing.
func moveOutOf(tfd int, base, trashPath string, dirfd int, name string) error {
	err := renameNoReplace(tfd, base, dirfd, name)
	if errors.Is(err, unix.EXDEV) {
		if err := copyTreeAt(tfd, base, dirfd, name, copyOpts{keepTimes: true}); err != nil {
			return fmt.Errorf("copying %s back from the trash: %w", trashPath, err)
		}
		return removeTreeAt(tfd, base)
	}
	return err
}

// DefaultTrash returns the operating system's trash for entries of the
// folder root: on macOS ~/.Trash; elsewhere the freedesktop home trash
// ($XDG_DATA_HOME/Trash) when it is on root's file system, else, on root's
// mount, $topdir/.Trash/$uid or $topdir/.Trash-$uid when they pass the
// checks of the specification (see FreedesktopTrash.open), else the home
// trash (entries are then copied, and the ledger says so).
func DefaultTrash(root string) (Trash, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("finding the trash: %w", err)
	}
	if isDarwin {
		return DirTrash{Dir: filepath.Join(home, ".Trash")}, nil
	}
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" || !filepath.IsAbs(data) {
		data = filepath.Join(home, ".local", "share")
	}
	homeTrash := FreedesktopTrash{Dir: filepath.Join(data, "Trash")}
	rootDev, ok1 := devOf(root)
	homeDev, ok2 := devOf(nearestExisting(homeTrash.Dir))
	if !ok1 || !ok2 || rootDev == homeDev {
		return homeTrash, nil
	}
	top := mountTop(root, rootDev)
	uid := os.Getuid()
	for _, dir := range []string{filepath.Join(top, ".Trash", strconv.Itoa(uid)), filepath.Join(top, fmt.Sprintf(".Trash-%d", uid))} {
		t := FreedesktopTrash{Dir: dir, TopDir: top}
		if files, info, err := t.open(); err == nil {
			unix.Close(files)
			unix.Close(info)
			return t, nil
		}
	}
	return homeTrash, nil
}

func devOf(p string) (uint64, bool) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return 0, false
	}
	return uint64(st.Dev), true
}

func nearestExisting(p string) string {
	for {
		if _, err := os.Stat(p); err == nil || p == filepath.Dir(p) {
			return p
		}
		p = filepath.Dir(p)
	}
}

// mountTop is the topmost ancestor of p on the same device.
func mountTop(p string, dev uint64) string {
	for {
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		if d, ok := devOf(parent); !ok || d != dev {
			return p
		}
		p = parent
	}
}
