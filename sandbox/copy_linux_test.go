//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// tmpfsEnv is an env whose watched folder is a small tmpfs of its own.
func tmpfsEnv(t *testing.T, size string) *env {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	e := newEnv(t, false)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", e.root).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { unix.Unmount(e.root, unix.MNT_DETACH) })
	e.reopen(false)
	return e
}

// TestCopyKeepsSparseFilesSparse copies a 2 GiB file that holds 8 KiB of
// data on a 64 MiB file system: the copy must stay sparse.
func TestCopyKeepsSparseFilesSparse(t *testing.T) {
	e := tmpfsEnv(t, "64m")
	p := filepath.Join(e.root, "sparse.img")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("x", 4096)), 1<<30); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("y", 4096)), (2<<30)-4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	e.mustCall("file_copy", map[string]any{"from": "sparse.img", "to": "copy.img"})
	var st unix.Stat_t
	if err := unix.Stat(filepath.Join(e.root, "copy.img"), &st); err != nil {
		t.Fatal(err)
	}
	if st.Size != 2<<30 || st.Blocks*512 > 1<<20 {
		t.Fatalf("copy: size %d, %d bytes on disk; want 2 GiB in at most 1 MiB", st.Size, st.Blocks*512)
	}
	c, err := os.Open(filepath.Join(e.root, "copy.img"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 3)
	for off, want := range map[int64]string{0: "\x00\x00\x00", 1 << 30: "xxx", (2 << 30) - 3: "yyy", (1 << 30) + 4096: "\x00\x00\x00"} {
		if _, err := c.ReadAt(buf, off); err != nil || string(buf) != want {
			t.Fatalf("copy at %d = %q (%v), want %q", off, buf, err, want)
		}
	}
}

// TestCopyRefusesWhatDoesNotFit copies a file bigger than the free space:
// the copy is refused up front with a clear error and leaves nothing.
func TestCopyRefusesWhatDoesNotFit(t *testing.T) {
	e := tmpfsEnv(t, "8m")
	write(t, filepath.Join(e.root, "d", "big.bin"), strings.Repeat("z", 5<<20))
	before := snapshot(t, e.root)
	for _, from := range []string{"d/big.bin", "d"} {
		_, err := e.call("file_copy", map[string]any{"from": from, "to": "copy-" + strings.ReplaceAll(from, "/", "-")})
		if err == nil || !containsAll(err.Error(), "free", "nothing was copied") {
			t.Fatalf("copy of %s larger than the free space: %v", from, err)
		}
	}
	if d := diffSnapshots(before, snapshot(t, e.root)); len(d) > 0 {
		t.Fatalf("a refused copy left: %v", d)
	}
}
