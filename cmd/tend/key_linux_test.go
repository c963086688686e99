package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: what the user's terminal
// (master) and the program's standard input (slave) would be.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// TestKeySetDoesNotEcho types a key into `tend key set` on a real
// terminal and checks that the terminal never shows it.
func TestKeySetDoesNotEcho(t *testing.T) {
	master, slave := openPTY(t)
	const secret = "sk-test-do-not-show-4242"
	root := newRootCommand()
	var out bytes.Buffer
	root.SetIn(slave)
	root.SetOut(&out)
	root.SetErr(slave) // the prompt goes to the terminal, as stderr would
	root.SetArgs([]string{"key", "set", "echo-test"})
	done := make(chan error, 1)
	go func() { done <- root.Execute() }()

	// What the terminal shows, read until the command has returned.
	var screen lockedBuffer
	shown := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			screen.Write(buf[:n])
			if err != nil {
				close(shown)
				return
			}
		}
	}()
	// Type only once the prompt is up: the program has set the
	// terminal up by then.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(screen.String(), "Paste the key") {
		if time.Now().After(deadline) {
			t.Fatalf("no prompt on the terminal; it shows %q", screen.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := master.Write([]byte(secret + "\r")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done: // stored, or no keyring here: either way the key was read
	case <-time.After(20 * time.Second):
		t.Fatal("tend key set did not return after the key was typed")
	}
	slave.Close()
	select {
	case <-shown:
	case <-time.After(2 * time.Second):
	}
	if s := screen.String(); strings.Contains(s, secret) {
		t.Errorf("the terminal showed the key as it was typed: %q", s)
	}
	deleteTestKey(t)
}

func deleteTestKey(t *testing.T) {
	root := newRootCommand()
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	root.SetArgs([]string{"key", "rm", "echo-test"})
	root.Execute()
}
