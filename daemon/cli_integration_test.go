package daemon_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/content"
	"github.com/tend-agent/tend/internal/testutil"
	"github.com/tend-agent/tend/watchers"
)

// tendBin is the tend binary, built once for all the tests of the package.
var tendBin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	content.RunChildIfAsked() // the in-process daemons' extraction child
	code := m.Run()
	if tendBin.dir != "" {
		os.RemoveAll(tendBin.dir)
	}
	os.Exit(code)
}

// buildTend compiles cmd/tend (once per test binary) and returns its path.
func buildTend(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the tend binary")
	}
	tendBin.once.Do(func() {
		if tendBin.dir, tendBin.err = os.MkdirTemp("", "tend-bin"); tendBin.err != nil {
			return
		}
		tendBin.path = filepath.Join(tendBin.dir, "tend")
		if out, err := exec.Command("go", "build", "-o", tendBin.path, "../cmd/tend").CombinedOutput(); err != nil {
			tendBin.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if tendBin.err != nil {
		t.Fatalf("building tend: %v", tendBin.err)
	}
	return tendBin.path
}

// syncBuffer collects a subprocess's output safely.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// cli runs tend commands and daemons against one TEND_HOME.
type cli struct {
	t    *testing.T
	bin  string
	home string
}

func (c cli) env() []string {
	// No model server answers on port 9: runs fail fast, after their
	// run-start record is written.
	return append(os.Environ(), "TEND_HOME="+c.home, "OLLAMA_HOST=127.0.0.1:9")
}

// run runs one command and returns its exit code, stdout and stderr.
func (c cli) run(args ...string) (int, string, string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Env = c.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	default:
		c.t.Fatalf("tend %s: %v", strings.Join(args, " "), err)
		return -1, "", ""
	}
}

type proc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan struct{} // closed when the process has ended
	err    error         // its Wait result, set before done closes
}

// daemon starts `tend daemon --http ""` and waits until its API answers.
func (c cli) daemon() *proc {
	c.t.Helper()
	p := &proc{stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(c.bin, "daemon", "--http", "")
	p.cmd.Env = c.env()
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		c.t.Fatalf("starting the daemon: %v", err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	c.t.Cleanup(func() { p.kill() })
	cl := api.NewClient(filepath.Join(c.home, "tend.sock"))
	testutil.WaitFor(c.t, "the daemon to answer", func() bool {
		select {
		case <-p.done:
			c.t.Fatalf("the daemon exited (%v): %s", p.err, p.stderr.String())
		default:
		}
		_, err := cl.Status(context.Background())
		return err == nil
	}, p.stderr.String)
	return p
}

// kill sends SIGKILL and waits for the process to end.
func (p *proc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stop asks the daemon to end and waits for it.
func (p *proc) stop(t *testing.T) {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		if p.err != nil {
			t.Errorf("daemon ended with %v: %s", p.err, p.stderr.String())
		}
	case <-time.After(testutil.WaitLimit):
		t.Errorf("daemon did not stop on SIGTERM")
		p.kill()
	}
}

type runStart struct {
	Type    string `json:"type"`
	Trigger string `json:"trigger"`
	Changed []struct {
		Path    string `json:"path"`
		Removed bool   `json:"removed"`
	} `json:"changed"`
}

func runStarts(t *testing.T, file string) []runStart {
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []runStart
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r runStart
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Type == "run-start" {
			out = append(out, r)
		}
	}
	return out
}

// A daemon killed with SIGKILL and started again finds what changed while
// it was down, and dispatches it once as a start-up run.
func TestDaemonSIGKILLRestartFindsChanges(t *testing.T) {
	t.Parallel()
	c := cli{t: t, bin: buildTend(t), home: testutil.ShortTempDir(t)}
	dir := t.TempDir()
	testutil.Write(t, dir, "keep.txt", "k")
	testutil.Write(t, dir, "mod.txt", "v1")
	testutil.Write(t, dir, "gone.txt", "g")

	p := c.daemon()
	if code, out, errs := c.run("add", dir, "--name", "docs", "--instructions", "sort the documents", "--responsiveness", "fast"); code != 0 {
		t.Fatalf("tend add: exit %d: %s%s", code, out, errs)
	}
	cl := api.NewClient(filepath.Join(c.home, "tend.sock"))
	var v api.View
	testutil.WaitFor(t, "the watcher to be idle", func() bool {
		var err error
		v, err = cl.Get(context.Background(), "docs")
		return err == nil && v.State.Phase == watchers.PhaseIdle
	})
	p.kill()
	first := p

	testutil.Write(t, dir, "new.txt", "n")
	testutil.Write(t, dir, "mod.txt", "version two")
	testutil.Write(t, dir, "sub/deep.txt", "d")
	if err := os.Remove(filepath.Join(dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}

	p = c.daemon()
	session := filepath.Join(c.home, "sessions", v.Definition.ID+".jsonl")
	testutil.WaitFor(t, "a start-up run in "+session, func() bool { return len(runStarts(t, session)) > 0 }, p.stderr.String, func() string {
		_, out, _ := c.run("status", "--json")
		ents, _ := os.ReadDir(filepath.Join(c.home, "state"))
		var files []string
		for _, e := range ents {
			fi, _ := e.Info()
			files = append(files, fmt.Sprintf("%s %d %s", e.Name(), fi.Size(), fi.ModTime().Format(time.StampMicro)))
		}
		return fmt.Sprintf("\nstate files %v\nfirst daemon: %s\nstatus: %s", files, first.stderr.String(), out)
	})
	// Let that run end before looking for any other.
	testutil.WaitFor(t, "the watcher to settle", func() bool {
		v, err := cl.Get(context.Background(), "docs")
		return err == nil && v.State.Runs >= 1 && v.State.Phase != watchers.PhaseProcessing && v.State.Phase != watchers.PhaseSettling
	})
	runs := runStarts(t, session)
	if len(runs) != 1 || runs[0].Trigger != "startup" {
		t.Fatalf("runs recorded: %+v; want one with trigger startup", runs)
	}
	var got []string
	for _, ch := range runs[0].Changed {
		s := ch.Path
		if ch.Removed {
			s += " (removed)"
		}
		got = append(got, s)
	}
	slices.Sort(got)
	want := []string{"gone.txt (removed)", "mod.txt", "new.txt", "sub", "sub/deep.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("start-up run lists %q, want %q", got, want)
	}
	p.stop(t)
}

// One daemon per home; `tend status` fails without one; bad input to
// `tend add` gets a clear message.
func TestCLIDaemonLockStatusAndBadInput(t *testing.T) {
	t.Parallel()
	c := cli{t: t, bin: buildTend(t), home: testutil.ShortTempDir(t)}
	if code, out, errs := c.run("status"); code == 0 {
		t.Errorf("tend status without a daemon exited 0: %s%s", out, errs)
	}

	p := c.daemon()
	if code, out, errs := c.run("status"); code != 0 || !strings.Contains(out, "daemon running") {
		t.Errorf("tend status with a daemon: exit %d: %s%s", code, out, errs)
	}
	code, out, errs := c.run("daemon", "--http", "")
	if code == 0 || !strings.Contains(errs, "already running") || !strings.Contains(errs, c.home) {
		t.Errorf("second daemon: exit %d, output %s%s; want a non-zero exit saying one is already running for this home", code, out, errs)
	}

	dir := t.TempDir()
	testutil.Write(t, dir, "plain.txt", "p")
	if code, out, errs := c.run("add", dir, "--name", "taken", "--instructions", "x"); code != 0 {
		t.Fatalf("tend add: exit %d: %s%s", code, out, errs)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing path", []string{filepath.Join(dir, "nope"), "--name", "a"}, "does not exist"},
		{"a file", []string{filepath.Join(dir, "plain.txt"), "--name", "a"}, "is not a folder"},
		{"duplicate name", []string{dir, "--name", "taken"}, "already exists"},
		{"invalid name", []string{dir, "--name", "Not OK"}, "invalid name"},
		{"unknown tier", []string{dir, "--name", "a", "--responsiveness", "sloth"}, "unknown responsiveness"},
	} {
		args := append([]string{"add"}, tc.args...)
		args = append(args, "--instructions", "x")
		code, out, errs := c.run(args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, output %s%s; want an error saying %q", tc.name, code, out, errs, tc.want)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(c.home, "watchers"))
	if len(ents) != 1 {
		t.Errorf("refused adds left files in the store: %d entries", len(ents))
	}
	p.stop(t)
}
