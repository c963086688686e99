package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDaemonWritesLogFile: the daemon's log goes to TEND_HOME/tend.log as
// well as standard error, so `tend logs` finds it under any service
// manager (or none).
func TestDaemonWritesLogFile(t *testing.T) {
	g := &globalOptions{home: t.TempDir()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, g, daemonOptions{http: "", maxRuns: 1}) }()
	defer func() {
		cancel()
		<-done
	}()
	path := filepath.Join(g.home, "tend.log")
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), "tend daemon ready") && strings.Contains(string(b), "socket") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never said the daemon is ready; it holds %q", path, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("tend.log: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
}

func writeLines(t *testing.T, path string, from, to int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := from; i < to; i++ {
		fmt.Fprintf(f, "line %d\n", i)
	}
}

func TestLogsTail(t *testing.T) {
	g := &globalOptions{home: t.TempDir()}
	path := filepath.Join(g.home, "tend.log")
	writeLines(t, path+".1", 0, 30) // rotated: the older lines
	writeLines(t, path, 30, 40)
	out, err := run(t, g, "logs", "-n", "15")
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := 25; i < 40; i++ {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	if out != want.String() {
		t.Errorf("tend logs -n 15 =\n%s\nwant\n%s", out, want.String())
	}
	if _, err := run(t, &globalOptions{home: t.TempDir()}, "logs"); err == nil || !strings.Contains(err.Error(), "no log yet") {
		t.Errorf("logs of a home without a log: %v", err)
	}
	if _, err := run(t, g, "logs", "-n", "-1"); err == nil {
		t.Error("accepted -n -1")
	}
}

// TestLogsFollow: -f prints what is appended, also across a rotation.
func TestLogsFollow(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tend.log")
	writeLines(t, path, 0, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out lockedBuffer
	done := make(chan error, 1)
	go func() { done <- showLogs(ctx, path, 2, true, &out) }()
	waitOut := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(out.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q in:\n%s", want, out.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitOut("line 2\n")
	writeLines(t, path, 3, 5)
	waitOut("line 4\n")
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	writeLines(t, path, 5, 7)
	waitOut("line 6\n")
	cancel()
	if err := <-done; err != nil {
		t.Errorf("showLogs after cancel: %v", err)
	}
	want := "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n"
	if out.String() != want {
		t.Errorf("followed:\n%s\nwant\n%s", out.String(), want)
	}
}

// lockedBuffer collects output written by one goroutine and read by the
// test in another.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
