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

// TrashEntry is where a trashed entry went.
type TrashEntry struct {
	Path   string // absolute path of the entry inside the trash
	Copied bool   // the trash is on another file system: the entry was copied, then removed
}

// Trash receives deleted entries and gives them back on undo.
type Trash interface {
	// Put moves the entry name inside the directory dirfd, whose absolute
	// path was origPath, into the trash.
	Put(dirfd int, name, origPath string, now time.Time) (TrashEntry, error)
	// Restore moves the trashed entry at trashPath back to name inside
	// dirfd, never replacing anything there.
	Restore(trashPath string, dirfd int, name string) error
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
	files, info := filepath.Join(t.Dir, "files"), filepath.Join(t.Dir, "info")
	for _, d := range []string{files, info} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return TrashEntry{}, fmt.Errorf("preparing trash %s: %w", t.Dir, err)
		}
	}
	recorded := origPath
	if t.TopDir != "" {
		if r, err := filepath.Rel(t.TopDir, origPath); err == nil && !strings.HasPrefix(r, "..") {
			recorded = r
		}
	}
	body := fmt.Sprintf("[Trash Info]\nPath=%s\nDeletionDate=%s\n",
		(&url.URL{Path: recorded}).EscapedPath(), now.Local().Format("2006-01-02T15:04:05"))
	for i := 1; i < 10000; i++ {
		cand := trashName(name, i, ".")
		infoPath := filepath.Join(info, cand+".trashinfo")
		f, err := os.OpenFile(infoPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return TrashEntry{}, fmt.Errorf("writing trash info %s: %w", infoPath, err)
		}
		_, werr := f.WriteString(body)
		if werr == nil {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(infoPath)
			return TrashEntry{}, fmt.Errorf("writing trash info %s: %w", infoPath, werr)
		}
		entry, err := moveInto(dirfd, name, files, cand)
		if errors.Is(err, unix.EEXIST) {
			os.Remove(infoPath) // a stray entry without info: try the next name
			continue
		}
		if err != nil {
			os.Remove(infoPath)
			return TrashEntry{}, err
		}
		return entry, nil
	}
	return TrashEntry{}, fmt.Errorf("no free name for %s in trash %s", name, t.Dir)
}

// Restore implements Trash.
func (t FreedesktopTrash) Restore(trashPath string, dirfd int, name string) error {
	if err := moveOutOf(trashPath, dirfd, name); err != nil {
		return err
	}
	info := filepath.Join(filepath.Dir(filepath.Dir(trashPath)), "info", filepath.Base(trashPath)+".trashinfo")
	if err := os.Remove(info); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing trash info %s: %w", info, err)
	}
	return nil
}

// Put implements Trash.
func (t DirTrash) Put(dirfd int, name, origPath string, now time.Time) (TrashEntry, error) {
	if err := os.MkdirAll(t.Dir, 0o700); err != nil {
		return TrashEntry{}, fmt.Errorf("preparing trash %s: %w", t.Dir, err)
	}
	for i := 1; i < 10000; i++ {
		entry, err := moveInto(dirfd, name, t.Dir, trashName(name, i, " "))
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		return entry, err
	}
	return TrashEntry{}, fmt.Errorf("no free name for %s in trash %s", name, t.Dir)
}

// Restore implements Trash.
func (t DirTrash) Restore(trashPath string, dirfd int, name string) error {
	return moveOutOf(trashPath, dirfd, name)
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

// moveInto moves name (inside dirfd) to dir/cand, without replacing; across
// file systems it copies, then removes the original.
func moveInto(dirfd int, name, dir, cand string) (TrashEntry, error) {
	tfd, err := unix.Open(dir, oPath|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return TrashEntry{}, fmt.Errorf("opening trash %s: %w", dir, err)
	}
	defer unix.Close(tfd)
	entry := TrashEntry{Path: filepath.Join(dir, cand)}
	err = renameNoReplace(dirfd, name, tfd, cand)
	if errors.Is(err, unix.EXDEV) {
		if err := copyTreeAt(dirfd, name, tfd, cand, copyOpts{keepTimes: true}); err != nil {
			removeTreeAt(tfd, cand)
			return TrashEntry{}, fmt.Errorf("copying %s into trash %s: %w", name, dir, err)
		}
		if err := removeTreeAt(dirfd, name); err != nil {
			return TrashEntry{}, fmt.Errorf("removing %s after copying it into trash %s: %w", name, dir, err)
		}
		entry.Copied = true
		return entry, nil
	}
	if err != nil {
		return TrashEntry{}, err
	}
	return entry, nil
}

// moveOutOf moves trashPath back to name inside dirfd, never replacing.
func moveOutOf(trashPath string, dirfd int, name string) error {
	tfd, err := unix.Open(filepath.Dir(trashPath), oPath|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening trash folder of %s: %w", trashPath, err)
	}
	defer unix.Close(tfd)
	base := filepath.Base(trashPath)
	err = renameNoReplace(tfd, base, dirfd, name)
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
// ($XDG_DATA_HOME/Trash) when it is on root's file system, else the
// $topdir/.Trash-$uid of root's mount when that can be used, else the home
// trash (entries are then copied).
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
	dir := filepath.Join(top, fmt.Sprintf(".Trash-%d", os.Getuid()))
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return homeTrash, nil
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return homeTrash, nil
	}
	return FreedesktopTrash{Dir: dir, TopDir: top}, nil
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
