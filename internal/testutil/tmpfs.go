package testutil

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Tmpfs mounts a fresh tmpfs of the given size (like "256k" or "1m") on a
// new temporary folder and returns it; it is unmounted when the test ends.
// A real small file system is the honest way to meet ENOSPC. The test is
// skipped where mounting is not allowed (not root, or no tmpfs).
func Tmpfs(t testing.TB, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := ShortTempDir(t)
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("cannot mount a tmpfs on %s: %v: %s", dir, err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, detach); err != nil {
			t.Errorf("unmounting the tmpfs on %s: %v", dir, err)
		}
	})
	return dir
}

// FillDisk writes a file into dir until the file system is full, and
// returns its path; removing it gives the space back.
func FillDisk(t testing.TB, dir string) string {
	t.Helper()
	p, err := os.CreateTemp(dir, "filler-*")
	if err != nil {
		t.Fatalf("filling %s: %v", dir, err)
	}
	defer p.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := p.Write(buf); err != nil {
			if !strings.Contains(err.Error(), "no space left") {
				t.Fatalf("filling %s: %v", dir, err)
			}
			break
		}
	}
	return p.Name()
}
