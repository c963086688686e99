//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// A trash folder on a shared file system can be prepared by another local
// user before tend first deletes something there: a world-writable
// .Trash-$uid lets them read what tend trashes, a "files" link sends it
// wherever they like. Following the freedesktop.org Trash specification,
// a $topdir trash is used only when it passes these checks, made on open
// handles (never re-resolving a path) each time the trash is opened:
//
//   - $topdir/.Trash: a real folder (not a link), owned by root, with the
//     sticky bit; in it $uid is made or must be a real folder owned by the
//     user with mode 0700;
//   - $topdir/.Trash-$uid: made, or must be a real folder owned by the user
//     with mode 0700;
//   - in either, "files" and "info" are made, or must be real folders
//     owned by the user.
//
// Otherwise DefaultTrash uses the home trash, and Put refuses.

// open opens the trash's files and info folders after checking the trash
// can be trusted. The caller closes both.
func (t FreedesktopTrash) open() (files, info int, err error) {
	var dfd int
	if t.TopDir != "" {
		dfd, err = openTopdirTrash(t.TopDir, t.Dir)
	} else {
		if err := os.MkdirAll(t.Dir, 0o700); err != nil {
			return -1, -1, fmt.Errorf("preparing trash %s: %w", t.Dir, err)
		}
		dfd, err = openOwnDir(unix.AT_FDCWD, t.Dir, false)
	}
	if err != nil {
		return -1, -1, err
	}
	defer unix.Close(dfd)
	if files, err = ownSubdir(dfd, t.Dir, "files"); err != nil {
		return -1, -1, err
	}
	if info, err = ownSubdir(dfd, t.Dir, "info"); err != nil {
		unix.Close(files)
		return -1, -1, err
	}
	return files, info, nil
}

// openTopdirTrash opens dir, which must be top/.Trash/$uid or
// top/.Trash-$uid, checking every step.
func openTopdirTrash(top, dir string) (int, error) {
	uid := os.Geteuid()
	rel, err := filepath.Rel(top, dir)
	if err != nil {
		return -1, fmt.Errorf("trash %s is not in %s", dir, top)
	}
	topfd, err := unix.Open(top, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("opening %s for its trash: %w", top, err)
	}
	defer unix.Close(topfd)
	switch rel {
	case filepath.Join(".Trash", strconv.Itoa(uid)):
		shared := filepath.Join(top, ".Trash")
		sfd, err := unix.Openat(topfd, ".Trash", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, untrusted(shared, err)
		}
		defer unix.Close(sfd)
		var st unix.Stat_t
		if err := unix.Fstat(sfd, &st); err != nil {
			return -1, err
		}
		if st.Uid != 0 {
			return -1, fmt.Errorf("the shared trash %s is not owned by root (uid %d), so it is not used", shared, st.Uid)
		}
		if st.Mode&unix.S_ISVTX == 0 {
			return -1, fmt.Errorf("the shared trash %s has no sticky bit, so any user could swap its folders; it is not used", shared)
		}
		return openOwnDir(sfd, dir, true)
	case fmt.Sprintf(".Trash-%d", uid):
		return openOwnDir(topfd, dir, true)
	}
	return -1, fmt.Errorf("%s is not a trash folder of %s for uid %d", dir, top, uid)
}

// openOwnDir opens the folder path (its last name inside parent, or path
// itself with AT_FDCWD) and checks it is a real folder owned by the user.
// private makes it (mode 0700) when missing and requires mode 0700.
func openOwnDir(parent int, path string, private bool) (int, error) {
	name := path
	if parent != unix.AT_FDCWD {
		name = filepath.Base(path)
	}
	if private {
		if err := unix.Mkdirat(parent, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, fmt.Errorf("making trash folder %s: %w", path, err)
		}
	}
	fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, untrusted(path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if int(st.Uid) != os.Geteuid() {
		unix.Close(fd)
		return -1, fmt.Errorf("trash folder %s belongs to uid %d, not to this user (%d), so it is not used", path, st.Uid, os.Geteuid())
	}
	if private && st.Mode&0o7777 != 0o700 {
		unix.Close(fd)
		return -1, fmt.Errorf("trash folder %s has mode %04o, not 0700, so other users could reach what is trashed; it is not used", path, st.Mode&0o7777)
	}
	return fd, nil
}

// ownSubdir opens (making it when missing) the folder name inside the
// trash folder dfd, which must be a real folder owned by the user.
func ownSubdir(dfd int, dir, name string) (int, error) {
	if err := unix.Mkdirat(dfd, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
		return -1, fmt.Errorf("preparing trash %s: %w", dir, err)
	}
	return openOwnDir(dfd, filepath.Join(dir, name), false)
}

func untrusted(path string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return fmt.Errorf("trash folder %s is a symbolic link or not a folder, so it is not used", path)
	}
	return fmt.Errorf("opening trash folder %s: %w", path, err)
}
