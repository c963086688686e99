//go:build linux

package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenat2RefusedFallsBack plays a kernel without openat2 (ENOSYS) and a
// seccomp filter that answers EPERM for it: the tools must go on working
// through the component walk, and still refuse a way out of the folder.
func TestOpenat2RefusedFallsBack(t *testing.T) {
	for _, errno := range []unix.Errno{unix.ENOSYS, unix.EPERM} {
		t.Run(errno.Error(), func(t *testing.T) {
			e := newEnv(t, false)
			write(t, filepath.Join(e.root, "a.txt"), "hello")
			write(t, filepath.Join(e.outside, "secret.txt"), "secret")
			calls := 0
			e.box.fs.openat2 = func(int, string, *unix.OpenHow) (int, error) {
				calls++
				return -1, errno
			}
			if out, err := e.call("file_read", map[string]any{"path": "a.txt"}); err != nil || out != "hello" {
				t.Fatalf("file_read with openat2 refused (%v): %q, %v", errno, out, err)
			}
			e.mustCall("file_write", map[string]any{"path": "sub/b.txt", "content": "B"})
			if got := e.read("sub/b.txt"); got != "B" {
				t.Fatalf("sub/b.txt = %q", got)
			}
			if err := unix.Symlink(e.outside, filepath.Join(e.root, "out")); err != nil {
				t.Fatal(err)
			}
			if _, err := e.call("file_read", map[string]any{"path": "out/secret.txt"}); err == nil || !strings.Contains(err.Error(), "leads outside") {
				t.Fatalf("read through an outward link with the walk: %v", err)
			}
			if calls == 0 {
				t.Fatal("the injected openat2 was never called")
			}
		})
	}
}

// TestOpenat2PermissionErrorStays checks that a real EPERM from openat2 on
// one file (openat2 itself works) is reported, not taken for a missing
// system call.
func TestOpenat2PermissionErrorStays(t *testing.T) {
	e := newEnv(t, false)
	write(t, filepath.Join(e.root, "a.txt"), "hello")
	e.box.fs.openat2 = func(dirfd int, path string, how *unix.OpenHow) (int, error) {
		if path == "a.txt" {
			return -1, unix.EPERM
		}
		return unix.Openat2(dirfd, path, how)
	}
	if _, err := e.call("file_read", map[string]any{"path": "a.txt"}); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("want the EPERM reported, got %v", err)
	}
	if e.box.fs.noOpenat2.Load() {
		t.Fatal("a per-file EPERM turned openat2 off")
	}
}
