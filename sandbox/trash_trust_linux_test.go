//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/internal/unpriv"
	"golang.org/x/sys/unix"
)

// sharedTop is a tmpfs mounted world-writable with the sticky bit, like
// /tmp or a shared data disk, with a home trash on another file system.
func sharedTop(t *testing.T) (top, home string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs and to be another user than 65534")
	}
	top = t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m,mode=1777", "tmpfs", top).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { unix.Unmount(top, unix.MNT_DETACH) })
	// the test's temp folders are private to root; the other user must
	// reach the mount
	for p := top; p != "/"; p = filepath.Dir(p) {
		if p == os.TempDir() {
			break
		}
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil && st.Mode&0o001 == 0 && p != top {
			os.Chmod(p, os.FileMode(st.Mode&0o777|0o011))
		}
	}
	home = t.TempDir()
	t.Setenv("XDG_DATA_HOME", home)
	return top, filepath.Join(home, "Trash")
}

// TestDefaultTrashDistrustsOtherUsersTrash plays another local user who
// prepares the shared trash folders of a file system before tend deletes
// something there: tend must not use them (the deleted file would land
// where that user can read it, or wherever a link points), and falls back
// to the home trash.
func TestDefaultTrashDistrustsOtherUsersTrash(t *testing.T) {
	uid := os.Getuid()
	// dotTrash cases fall back to a fresh private .Trash-$uid; the others
	// to the home trash.
	cases := []struct {
		name     string
		dotTrash bool
		prepare  func(t *testing.T, top string)
	}{
		{"open Trash-uid", false, func(t *testing.T, top string) {
			unpriv.Sh(t, fmt.Sprintf("mkdir -m 0777 %s/.Trash-%d", top, uid))
		}},
		{"other user's Trash-uid with linked files", false, func(t *testing.T, top string) {
			unpriv.Sh(t, fmt.Sprintf("mkdir -p -m 0700 %[1]s/.Trash-%[2]d %[1]s/loot && ln -s %[1]s/loot %[1]s/.Trash-%[2]d/files && mkdir %[1]s/.Trash-%[2]d/info && chmod 0700 %[1]s/.Trash-%[2]d", top, uid))
		}},
		{"own Trash-uid with linked files", false, func(t *testing.T, top string) {
			unpriv.Sh(t, fmt.Sprintf("mkdir -m 0777 %s/loot", top))
			d := filepath.Join(top, fmt.Sprintf(".Trash-%d", uid))
			if err := os.Mkdir(d, 0o700); err != nil {
				t.Fatal(err)
			}
			os.Symlink(filepath.Join(top, "loot"), filepath.Join(d, "files"))
		}},
		{"own Trash-uid with linked info", false, func(t *testing.T, top string) {
			unpriv.Sh(t, fmt.Sprintf("mkdir -m 0777 %s/loot", top))
			d := filepath.Join(top, fmt.Sprintf(".Trash-%d", uid))
			os.Mkdir(d, 0o700)
			os.Mkdir(filepath.Join(d, "files"), 0o700)
			os.Symlink(filepath.Join(top, "loot"), filepath.Join(d, "info"))
		}},
		{"other user's sticky .Trash", true, func(t *testing.T, top string) {
			unpriv.Sh(t, fmt.Sprintf("mkdir -m 1777 %s/.Trash", top))
		}},
		{"root's .Trash with other user's uid folder", true, func(t *testing.T, top string) {
			if err := os.Mkdir(filepath.Join(top, ".Trash"), 0o777); err != nil {
				t.Fatal(err)
			}
			unix.Chmod(filepath.Join(top, ".Trash"), 0o1777)
			unpriv.Sh(t, fmt.Sprintf("mkdir -m 0777 %s/.Trash/%d", top, uid))
		}},
		{"root's .Trash without sticky bit", true, func(t *testing.T, top string) {
			if err := os.Mkdir(filepath.Join(top, ".Trash"), 0o777); err != nil {
				t.Fatal(err)
			}
			os.Chmod(filepath.Join(top, ".Trash"), 0o777)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			top, homeTrash := sharedTop(t)
			c.prepare(t, top)
			root := filepath.Join(top, "watched")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			tr, err := DefaultTrash(root)
			if err != nil {
				t.Fatal(err)
			}
			want, bad := homeTrash, filepath.Join(top, fmt.Sprintf(".Trash-%d", uid))
			if c.dotTrash {
				want, bad = bad, filepath.Join(top, ".Trash", fmt.Sprint(uid))
			}
			if fd, ok := tr.(FreedesktopTrash); !ok || fd.Dir != want {
				t.Fatalf("trash %#v, want %s", tr, want)
			}
			// Even told to use the distrusted trash, Put refuses it.
			for _, dir := range []string{bad} {
				write(t, filepath.Join(root, "a.txt"), "private")
				_, err := FreedesktopTrash{Dir: dir, TopDir: top}.Put(openDirFd(t, root), "a.txt", filepath.Join(root, "a.txt"), time.Now())
				if err == nil {
					t.Fatalf("Put into %s accepted", dir)
				}
				if _, serr := os.Stat(filepath.Join(root, "a.txt")); serr != nil {
					t.Fatalf("a refused Put removed the file: %v", serr)
				}
			}
			if ents, _ := os.ReadDir(filepath.Join(top, "loot")); len(ents) > 0 {
				t.Fatalf("something landed in the other user's folder: %v", ents)
			}
		})
	}
}

// TestDefaultTrashUsesGoodTopdirTrash checks the two trusted forms: a
// root-owned sticky $topdir/.Trash (with a private $uid folder made in
// it), and a private $topdir/.Trash-$uid.
func TestDefaultTrashUsesGoodTopdirTrash(t *testing.T) {
	uid := fmt.Sprint(os.Getuid())
	for _, shared := range []bool{true, false} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			top, _ := sharedTop(t)
			want := filepath.Join(top, ".Trash-"+uid)
			if shared {
				if err := os.Mkdir(filepath.Join(top, ".Trash"), 0o777); err != nil {
					t.Fatal(err)
				}
				unix.Chmod(filepath.Join(top, ".Trash"), 0o1777)
				want = filepath.Join(top, ".Trash", uid)
			}
			root := filepath.Join(top, "watched")
			os.Mkdir(root, 0o755)
			tr, err := DefaultTrash(root)
			if err != nil {
				t.Fatal(err)
			}
			if fd, ok := tr.(FreedesktopTrash); !ok || fd.Dir != want || fd.TopDir != top {
				t.Fatalf("trash %#v, want %s", tr, want)
			}
			write(t, filepath.Join(root, "a.txt"), "A")
			e, err := tr.Put(openDirFd(t, root), "a.txt", filepath.Join(root, "a.txt"), time.Now())
			if err != nil || e.Copied || !strings.HasPrefix(e.Path, want+"/files/") {
				t.Fatalf("%+v %v", e, err)
			}
			fi, err := os.Lstat(want)
			if err != nil || fi.Mode().Perm() != 0o700 {
				t.Fatalf("the trash folder %s: %v %v", want, fi.Mode(), err)
			}
		})
	}
}
