package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func openDirFd(t *testing.T, p string) int {
	t.Helper()
	fd, err := unix.Open(p, oPath|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

func TestFreedesktopTrashDefault(t *testing.T) {
	if isDarwin {
		t.Skip("macOS uses ~/.Trash")
	}
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	root := t.TempDir()
	tr, err := DefaultTrash(root)
	if err != nil {
		t.Fatal(err)
	}
	fd, ok := tr.(FreedesktopTrash)
	if !ok || fd.Dir != filepath.Join(data, "Trash") {
		t.Fatalf("default trash %#v, want the freedesktop home trash under %s", tr, data)
	}
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.Local)
	dirfd := openDirFd(t, root)
	var entries []TrashEntry
	for i, content := range []string{"first", "second"} {
		write(t, filepath.Join(root, "my file.txt"), content)
		e, err := tr.Put(dirfd, "my file.txt", filepath.Join(root, "my file.txt"), now)
		if err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
		entries = append(entries, e)
	}
	wantNames := []string{"my file.txt", "my file.2.txt"}
	for i, e := range entries {
		if filepath.Base(e.Path) != wantNames[i] || filepath.Dir(e.Path) != filepath.Join(data, "Trash", "files") || e.Copied {
			t.Errorf("entry %d: %+v", i, e)
		}
		info, err := os.ReadFile(filepath.Join(data, "Trash", "info", wantNames[i]+".trashinfo"))
		if err != nil {
			t.Fatal(err)
		}
		wantInfo := "[Trash Info]\nPath=" + strings.ReplaceAll(filepath.Join(root, "my file.txt"), " ", "%20") + "\nDeletionDate=2026-03-04T05:06:07\n"
		if string(info) != wantInfo {
			t.Errorf("info %q, want %q", info, wantInfo)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "my file.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the file is still in the folder")
	}
	// restore the second one; the name must be free and the info file goes
	if err := tr.Restore(entries[1].Path, dirfd, "back.txt"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "back.txt")); string(data) != "second" {
		t.Errorf("restored %q", data)
	}
	if _, err := os.Stat(filepath.Join(data, "Trash", "info", "my file.2.txt.trashinfo")); !errors.Is(err, os.ErrNotExist) {
		t.Error("info file left behind")
	}
	// never replaces on restore
	if err := tr.Restore(entries[0].Path, dirfd, "back.txt"); !errors.Is(err, unix.EEXIST) {
		t.Errorf("restore onto an existing file: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "back.txt")); string(data) != "second" {
		t.Errorf("restore replaced a file: %q", data)
	}
}

func TestDirTrashNames(t *testing.T) {
	root, trash := t.TempDir(), t.TempDir()
	tr := DirTrash{Dir: trash}
	dirfd := openDirFd(t, root)
	for i := 0; i < 3; i++ {
		write(t, filepath.Join(root, "x.pdf"), "x")
		if _, err := tr.Put(dirfd, "x.pdf", filepath.Join(root, "x.pdf"), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"x.pdf", "x 2.pdf", "x 3.pdf"} {
		if _, err := os.Stat(filepath.Join(trash, n)); err != nil {
			t.Errorf("missing %s: %v", n, err)
		}
	}
}

// TestTrashAcrossFileSystems deletes into a trash on another file system
// (tmpfs /dev/shm): the entry is copied, a backup is recorded, and undo
// brings it back.
func TestTrashAcrossFileSystems(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "tend-trash-")
	if err != nil {
		t.Skip("no /dev/shm")
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	e := newEnv(t, false)
	if d1, _ := devOf(shm); func() bool { d2, _ := devOf(e.root); return d1 == d2 }() {
		t.Skip("/dev/shm is on the same file system")
	}
	e.seed()
	opts := e.opts(false)
	opts.Trash = FreedesktopTrash{Dir: shm}
	b, err := New(e.root, e.ledger, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	e.box = b
	before := snapshot(t, e.root)
	e.mustCall("file_delete", map[string]any{"path": "a.txt"})
	e.mustCall("file_delete", map[string]any{"path": "docs"})
	eff := e.ledger.Snapshot()
	if eff[0].Backup == "" || !strings.HasPrefix(eff[0].TrashPath, shm) {
		t.Fatalf("cross-device delete: %+v", eff[0])
	}
	if data, _ := os.ReadFile(filepath.Join(shm, "files", "docs", "sub", "c.txt")); string(data) != "c" {
		t.Fatal("folder not copied into the trash")
	}
	if _, err := Undo(e.root, e.ledger, opts); err != nil {
		t.Fatal(err)
	}
	if d := diffSnapshots(before, snapshot(t, e.root)); len(d) > 0 {
		t.Fatalf("not restored: %v", d)
	}
}

func TestLedgerSaveIsAtomic(t *testing.T) {
	dir := t.TempDir()
	l := NewLedger("w", "r")
	l.add(Effect{Op: OpWrite, Path: "a", After: Meta{Exists: true, Kind: "file", Size: 1}})
	p := filepath.Join(dir, "ledger.json")
	for i := 0; i < 3; i++ {
		if err := l.Save(p); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temp files left: %v", entries)
	}
	got, err := LoadLedger(p)
	if err != nil || got.Effects[0].Path != "a" || got.Effects[0].Seq != 1 {
		t.Fatalf("%+v %v", got, err)
	}
	os.WriteFile(p, []byte("{broken"), 0o600)
	if _, err := LoadLedger(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("a broken ledger should be named in the error: %v", err)
	}
}

func TestNewRejectsBadRoot(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	write(t, f, "x")
	for _, p := range []string{f, filepath.Join(t.TempDir(), "missing")} {
		if _, err := New(p, nil, Options{Trash: DirTrash{Dir: t.TempDir()}}); err == nil {
			t.Errorf("New(%s) accepted", p)
		}
	}
	// a root given through a symlink: its absolute spelling is accepted
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(real, link)
	write(t, filepath.Join(real, "a.txt"), "A")
	b, err := New(link, nil, Options{Trash: DirTrash{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, p := range []string{filepath.Join(link, "a.txt"), filepath.Join(b.Root(), "a.txt")} {
		out, err := b.Call(t.Context(), "file_read", []byte(`{"path":"`+p+`"}`))
		if err != nil || out != "A" {
			t.Errorf("read %s: %q %v", p, out, err)
		}
	}
}

// TestDefaultTrashOtherFileSystem: a folder on another file system than
// the home trash gets its mount's $topdir/.Trash-$uid.
func TestDefaultTrashOtherFileSystem(t *testing.T) {
	if isDarwin {
		t.Skip("macOS uses ~/.Trash")
	}
	root, err := os.MkdirTemp("/dev/shm", "tend-root-")
	if err != nil {
		t.Skip("no /dev/shm")
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	if d1, _ := devOf(root); func() bool { d2, _ := devOf(data); return d1 == d2 }() {
		t.Skip("/dev/shm is on the same file system")
	}
	top := mountTop(root, func() uint64 { d, _ := devOf(root); return d }())
	want := filepath.Join(top, fmt.Sprintf(".Trash-%d", os.Getuid()))
	if _, err := os.Lstat(want); errors.Is(err, os.ErrNotExist) {
		t.Cleanup(func() { os.RemoveAll(want) })
	}
	tr, err := DefaultTrash(root)
	if err != nil {
		t.Fatal(err)
	}
	fd, ok := tr.(FreedesktopTrash)
	if !ok || fd.Dir != want || fd.TopDir != top {
		t.Fatalf("trash %#v, want %s", tr, want)
	}
	write(t, filepath.Join(root, "a.txt"), "A")
	e, err := tr.Put(openDirFd(t, root), "a.txt", filepath.Join(root, "a.txt"), time.Now())
	if err != nil || e.Copied {
		t.Fatalf("%+v %v", e, err)
	}
	t.Cleanup(func() { tr.Restore(e.Path, openDirFd(t, root), "a.txt") })
	info, _ := os.ReadFile(filepath.Join(want, "info", filepath.Base(e.Path)+".trashinfo"))
	rel, _ := filepath.Rel(top, filepath.Join(root, "a.txt"))
	if !strings.Contains(string(info), "Path="+rel+"\n") {
		t.Errorf("info %q should hold the path relative to %s", info, top)
	}
}
