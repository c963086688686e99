package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBundleStartRunsDaemonWithTray builds tend into a Tend.app layout
// and starts it as Finder does, with no arguments: it must run the
// daemon and try for the menu-bar icon (here there is no tray host, which
// it says). The same binary outside a bundle prints help and exits.
func TestBundleStartRunsDaemonWithTray(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tend binary; skipped with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	root := t.TempDir()
	exe := filepath.Join(root, "Tend.app", "Contents", "MacOS", "tend")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("building tend: %v\n%s", err, out)
	}
	env := append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(root, "no-bus"))

	plain := filepath.Join(root, "tend")
	if err := os.Link(exe, plain); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(plain)
	cmd.Env = append(env, "TEND_HOME="+filepath.Join(root, "plain-home"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Available Commands:") {
		t.Errorf("tend with no arguments outside a bundle: %v\n%s", err, out)
	}

	home := filepath.Join(root, "home")
	var stderr lockedBuffer
	cmd = exec.Command(exe)
	cmd.Env = append(env, "TEND_HOME="+home)
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		log, _ := os.ReadFile(filepath.Join(home, "tend.log"))
		if strings.Contains(string(log), "tend daemon ready") && strings.Contains(stderr.String(), "no system tray available") {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the bundle's start exited (%v):\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no daemon with a tray attempt within 30 s; log %q, stderr:\n%s", log, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
