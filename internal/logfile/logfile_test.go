package logfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tend-agent/tend/internal/testutil"
)

func TestRotationBoundsTheSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tend.log")
	w, err := Open(path, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 500 {
		fmt.Fprintf(w, "line %04d of the log\n", i)
	}
	cur, _ := os.ReadFile(path)
	old, _ := os.ReadFile(path + ".1")
	if len(cur) > 1000 || len(old) > 1000 {
		t.Errorf("tend.log is %d bytes and tend.log.1 %d; the limit is 1000", len(cur), len(old))
	}
	if !strings.HasSuffix(string(cur), "line 0499 of the log\n") {
		t.Errorf("tend.log does not end with the newest line:\n%s", cur)
	}
	if !strings.HasSuffix(string(old), "\n") || !bytes.Contains(append(old, cur...), []byte("line 0480")) {
		t.Errorf("the rotated file does not hold the lines just before:\n%s", old)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestReopenAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tend.log")
	for i := range 2 {
		w, err := Open(path, 1<<20, nil)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "start %d\n", i)
		w.Close()
	}
	if b, _ := os.ReadFile(path); string(b) != "start 0\nstart 1\n" {
		t.Errorf("log = %q", b)
	}
}

// TestFullDiskDoesNotFailTheWriter: a full disk is said once, and the
// daemon's logging goes on.
func TestFullDiskDoesNotFailTheWriter(t *testing.T) {
	dir := testutil.Tmpfs(t, "64k")
	var errs bytes.Buffer
	w, err := Open(filepath.Join(dir, "tend.log"), 1<<20, &errs)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	testutil.FillDisk(t, dir)
	for range 100 {
		if n, err := w.Write(bytes.Repeat([]byte("x"), 1000)); err != nil || n != 1000 {
			t.Fatalf("Write = %d, %v; want it to swallow the error", n, err)
		}
	}
	if c := strings.Count(errs.String(), "cannot write the log file"); c != 1 {
		t.Errorf("said it %d times: %q", c, errs.String())
	}
}

func TestOpenRefusesBadLimit(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "x"), 0, nil); err == nil {
		t.Error("accepted a zero limit")
	}
}
