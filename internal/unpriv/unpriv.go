// Package unpriv lets a test that needs permissions to bite (a folder
// with mode 000) run for real when the suite runs as root, as it does in
// CI: the test re-runs itself as the nobody user through setpriv.
package unpriv

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

const nobody = "65534"

// Rerun returns false when the caller is not root: the test goes on as it
// is. As root it runs the calling test again in a copy of the test binary
// as uid/gid 65534, fails t if that run fails, and returns true: the
// caller returns at once. Without setpriv the test is skipped.
func Rerun(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("running as root without setpriv (util-linux): permissions cannot be exercised")
	}
	// t.TempDir's parent is private to root; this folder must be open to
	// the unprivileged run.
	dir, err := os.MkdirTemp("", "tend-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	// The go test build folder is private to root; run a copy.
	bin := filepath.Join(dir, "test.bin")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatalf("copying the test binary: %v", err)
	}
	cmd := exec.Command(setpriv, "--reuid="+nobody, "--regid="+nobody, "--clear-groups",
		bin, "-test.run", "^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir, "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: "+t.Name())) {
		t.Fatalf("as uid %s: %v\n%s", nobody, err, out)
	}
	return true
}

// Sh runs a shell script as uid/gid 65534: the other local user of a test
// that plays one (who prepares a shared folder before tend uses it). The
// test is skipped without setpriv, and fails when the script does.
func Sh(t *testing.T, script string) {
	t.Helper()
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("no setpriv (util-linux): cannot act as another user")
	}
	if os.Geteuid() != 0 {
		t.Skip("acting as another user needs root")
	}
	cmd := exec.Command(setpriv, "--reuid="+nobody, "--regid="+nobody, "--clear-groups", "sh", "-ec", script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as uid %s: %s: %v\n%s", nobody, script, err, out)
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
