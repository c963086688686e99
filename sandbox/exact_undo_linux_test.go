//go:build linux

package sandbox

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// aclXattr builds a POSIX access ACL in the kernel's xattr form (what
// setfacl writes): owner rwx, user 65534 r--, group r-x, mask r-x, other r-x.
func aclXattr() []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	binary.Write(&b, le, uint32(2)) // version
	for _, e := range []struct {
		tag, perm uint16
		id        uint32
	}{{0x01, 7, 0xffffffff}, {0x02, 4, 65534}, {0x04, 5, 0xffffffff}, {0x10, 5, 0xffffffff}, {0x20, 5, 0xffffffff}} {
		binary.Write(&b, le, e.tag)
		binary.Write(&b, le, e.perm)
		binary.Write(&b, le, e.id)
	}
	return b.Bytes()
}

type fileState struct {
	content  string
	mode     uint32
	uid, gid uint32
	mtime    int64
	ino      uint64
	xattrs   map[string]string
}

func stateOf(t *testing.T, p string) fileState {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := fileState{content: string(data), mode: uint32(st.Mode) & 0o7777, uid: st.Uid, gid: st.Gid,
		mtime: st.Mtim.Nano(), ino: st.Ino, xattrs: map[string]string{}}
	for _, name := range []string{"user.tag", "user.other", "system.posix_acl_access"} {
		buf := make([]byte, 256)
		if n, err := unix.Lgetxattr(p, name, buf); err == nil {
			s.xattrs[name] = string(buf[:n])
		}
	}
	return s
}

func (s fileState) same(o fileState) bool {
	if s.content != o.content || s.mode != o.mode || s.uid != o.uid || s.gid != o.gid || s.mtime != o.mtime || len(s.xattrs) != len(o.xattrs) {
		return false
	}
	for k, v := range s.xattrs {
		if o.xattrs[k] != v {
			return false
		}
	}
	return true
}

// TestUndoRestoresMetadataExactly overwrites and edits a setuid file owned
// by another user, with user xattrs and an ACL: the model's content must
// not be setuid, and undo must bring back content, mode, owner, xattrs,
// ACL and time.
func TestUndoRestoresMetadataExactly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the file to uid 65534")
	}
	e := newEnv(t, false)
	p := filepath.Join(e.root, "tool")
	write(t, p, "#!/bin/sh\necho original\n")
	if err := unix.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := unix.Chmod(p, 0o4755); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"user.tag": "blue", "user.other": "x"} {
		if err := unix.Setxattr(p, name, []byte(v), 0); err != nil {
			t.Skipf("no user xattrs on this file system: %v", err)
		}
	}
	acl := true
	if err := unix.Setxattr(p, "system.posix_acl_access", aclXattr(), 0); err != nil {
		t.Logf("no POSIX ACLs here (%v): the ACL part is skipped", err)
		acl = false
	}
	if err := unix.Chmod(p, 0o4755); err != nil { // the ACL set the group bits from its mask
		t.Fatal(err)
	}
	old := time.Date(2021, 5, 6, 7, 8, 9, 0, time.UTC)
	os.Chtimes(p, old, old)
	before := stateOf(t, p)
	if acl && before.xattrs["system.posix_acl_access"] == "" {
		t.Fatal("ACL not readable back")
	}

	e.mustCall("file_write", map[string]any{"path": "tool", "content": "#!/bin/sh\necho model\n", "overwrite": true})
	mid := stateOf(t, p)
	if mid.mode&(unix.S_ISUID|unix.S_ISGID) != 0 {
		t.Errorf("the model's new content is setuid/setgid: mode %04o", mid.mode)
	}
	if mid.uid != 65534 || mid.gid != 65534 {
		t.Errorf("the overwritten file changed owner to %d:%d", mid.uid, mid.gid)
	}
	e.mustCall("file_edit", map[string]any{"path": "tool", "old": "model", "new": "edited"})
	if m := stateOf(t, p); m.mode&(unix.S_ISUID|unix.S_ISGID) != 0 {
		t.Errorf("the edited content is setuid/setgid: mode %04o", m.mode)
	}

	if _, err := Undo(e.root, e.ledger, e.opts(false)); err != nil {
		t.Fatal(err)
	}
	if after := stateOf(t, p); !after.same(before) {
		t.Fatalf("undo did not restore the file exactly:\nbefore %+v\nafter  %+v", before, after)
	}
}

// TestUndoKeepsHardLinks edits a file that has a second name in the folder
// (the watcher allows hard links): the change is made in the shared inode,
// and undo restores the content into it, so both names agree throughout.
func TestUndoKeepsHardLinks(t *testing.T) {
	e := newEnv(t, false)
	a, b := filepath.Join(e.root, "a.txt"), filepath.Join(e.root, "b.txt")
	write(t, a, "shared text")
	if err := os.Link(a, b); err != nil {
		t.Fatal(err)
	}
	opts := e.opts(false)
	opts.AllowHardLinks = true
	box, err := New(e.root, e.ledger, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	e.box = box
	ino := stateOf(t, a).ino
	e.mustCall("file_edit", map[string]any{"path": "a.txt", "old": "shared", "new": "changed"})
	e.mustCall("file_write", map[string]any{"path": "a.txt", "content": "written", "overwrite": true})
	if got := e.read("b.txt"); got != "written" {
		t.Errorf("the other name of the file shows %q: the link was broken by the change", got)
	}
	rep, err := Undo(e.root, e.ledger, opts)
	if err != nil {
		t.Fatal(err)
	}
	sa, sb := stateOf(t, a), stateOf(t, b)
	if sa.content != "shared text" || sb.content != "shared text" || sa.ino != ino || sb.ino != ino {
		t.Fatalf("after undo: a %q ino %d, b %q ino %d; want both %q in inode %d (notes %v)", sa.content, sa.ino, sb.content, sb.ino, "shared text", ino, rep.Notes)
	}
}

// TestUndoReportsBrokenHardLink deletes a hard-linked file into a trash on
// another file system: it can only come back as a separate file, and undo
// says so.
func TestUndoReportsBrokenHardLink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	e := newEnv(t, false)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", e.outside).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { unix.Unmount(e.outside, unix.MNT_DETACH) })
	a := filepath.Join(e.root, "a.txt")
	write(t, a, "shared")
	os.Link(a, filepath.Join(e.root, "b.txt"))
	opts := e.opts(false)
	opts.AllowHardLinks = true
	opts.Trash = FreedesktopTrash{Dir: filepath.Join(e.outside, "Trash")}
	box, err := New(e.root, e.ledger, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	e.box = box
	e.mustCall("file_delete", map[string]any{"path": "a.txt"})
	rep, err := Undo(e.root, e.ledger, opts)
	if err != nil {
		t.Fatal(err)
	}
	if e.read("a.txt") != "shared" {
		t.Fatal("not restored")
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "a.txt") || !strings.Contains(strings.Join(rep.Notes, "\n"), "hard link") {
		t.Fatalf("undo did not report the broken link: %v", rep.Notes)
	}
}

// TestCopyDropsSetuid: a copy the model makes of a setuid program is new
// content owned by tend's user, so it must not be setuid.
func TestCopyDropsSetuid(t *testing.T) {
	e := newEnv(t, false)
	p := filepath.Join(e.root, "prog")
	write(t, p, "binary")
	if err := unix.Chmod(p, 0o6755); err != nil {
		t.Fatal(err)
	}
	e.mustCall("file_copy", map[string]any{"from": "prog", "to": "prog2"})
	if s := stateOf(t, filepath.Join(e.root, "prog2")); s.mode != 0o755 {
		t.Fatalf("copy has mode %04o, want 0755", s.mode)
	}
}
