package daemon_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/internal/testutil"
	"github.com/tend-agent/tend/watchers"
)

// crashPlan is the model stand-in's run: one tool call per round, 10
// rounds, 14 changes in all (mkdirs made for parents included): new
// files, an overwrite, an edit, moves, file and folder copies, file and
// folder deletes and folders.
var crashPlan = []modeltest.ToolCall{
	modeltest.Call("file_write", `{"path":"notes/new.txt","content":"made by the model"}`),
	modeltest.Call("file_write", `{"path":"a.txt","content":"overwritten","overwrite":true}`),
	modeltest.Call("file_edit", `{"path":"b.txt","old":"bravo","new":"BRAVO"}`),
	modeltest.Call("file_move", `{"from":"c.txt","to":"archive/c.txt"}`),
	modeltest.Call("file_copy", `{"from":"d.txt","to":"copies/d.txt"}`),
	modeltest.Call("file_delete", `{"path":"e.txt"}`),
	modeltest.Call("dir_create", `{"path":"empty/dir"}`),
	modeltest.Call("file_move", `{"from":"notes/new.txt","to":"notes/renamed.txt"}`),
	modeltest.Call("file_delete", `{"path":"sub"}`),
	modeltest.Call("file_copy", `{"from":"sub2","to":"sub2copy"}`),
}

// crashSteps is how many write-ahead changes crashPlan makes; each has the
// crash points intent, applied and done.
const crashSteps = 14

// crashCase kills the daemon at one point of the run: at write-ahead hook
// point hook (TEND_TEST_CRASH_AT), or, with hook 0, from outside while the
// stand-in holds back its answer to round round.
type crashCase struct {
	hook  int
	round int
}

func (c crashCase) String() string {
	if c.hook > 0 {
		return fmt.Sprintf("hook%02d", c.hook)
	}
	return fmt.Sprintf("round%02d", c.round)
}

// A daemon killed with SIGKILL anywhere in a run that changes the folder
// 14 times leaves a run that is undoable: on restart the run is recovered
// and recorded as interrupted, its changes are not sent to the model
// again, and `tend undo` puts the folder back byte for byte (content,
// mode, modification time), or names what it cannot.
func TestCrashMidRunStaysUndoable(t *testing.T) {
	bin := buildTend(t)
	var cases []crashCase
	// intent and applied of every change: before it is made, and made
	// but not confirmed.
	for step := 0; step < crashSteps; step++ {
		cases = append(cases, crashCase{hook: 3*step + 1}, crashCase{hook: 3*step + 2})
	}
	// confirmed, and between the model's rounds (from outside)
	cases = append(cases, crashCase{hook: 3 * crashSteps}, crashCase{round: 1}, crashCase{round: 5}, crashCase{round: len(crashPlan)})
	for _, cc := range cases {
		t.Run(cc.String(), func(t *testing.T) {
			t.Parallel()
			crashOnce(t, bin, cc)
		})
	}
}

func crashOnce(t *testing.T, bin string, cc crashCase) {
	var (
		mu     sync.Mutex
		killed bool
		late   []string // prompts the model got after the crash
	)
	srv := modeltest.NewOllama(t, func(req modeltest.Request) modeltest.Response {
		mu.Lock()
		if killed {
			late = append(late, req.FirstUser())
		}
		mu.Unlock()
		round := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				round++
			}
		}
		if cc.hook == 0 && round+1 == cc.round {
			return modeltest.Response{Hang: true}
		}
		if round < len(crashPlan) {
			return modeltest.Calls(crashPlan[round])
		}
		return modeltest.Text("All done.")
	})
	tmp := testutil.ShortTempDir(t)
	dir := filepath.Join(tmp, "folder")
	c := crashCLI{t: t, bin: bin, home: filepath.Join(tmp, "home"), data: filepath.Join(tmp, "data")}
	seedCrashFolder(t, dir)

	p := c.daemon(cc.hook)
	c.ok("add", dir, "--name", "w", "--instructions", "tidy up", "--base-url", srv.URL, "--model", "qwen3:8b", "--settle", "0")
	cl := api.NewClient(filepath.Join(c.home, "tend.sock"))
	testutil.WaitFor(t, "the watcher to be idle", func() bool {
		v, err := cl.Get(context.Background(), "w")
		return err == nil && v.State.Phase == watchers.PhaseIdle
	})
	before := folderState(t, dir)
	out := c.ok("run", "w")
	var runID string
	if f := strings.Fields(out); len(f) > 2 && f[0] == "started" {
		runID = strings.TrimSuffix(f[2], ";")
	} else {
		t.Fatalf("tend run said %q", out)
	}
	if cc.hook == 0 {
		testutil.WaitFor(t, fmt.Sprintf("the model to be asked round %d", cc.round), func() bool { return srv.Calls() >= cc.round })
		p.kill()
	} else {
		select {
		case <-p.done:
		case <-time.After(testutil.WaitLimit):
			t.Fatalf("the daemon did not crash at hook point %d: %s", cc.hook, p.stderr.String())
		}
	}
	mu.Lock()
	killed = true
	mu.Unlock()
	crashed := folderState(t, dir)

	restart := time.Now()
	p2 := c.daemon(0)
	session := filepath.Join(c.home, "sessions")
	testutil.WaitFor(t, "the restarted watcher to be idle", func() bool {
		v, err := cl.Get(context.Background(), "w")
		return err == nil && v.State.Phase == watchers.PhaseIdle && v.State.UpdatedAt.After(restart)
	}, p2.stderr.String)
	runs := readRuns(t, session)
	if crashed != before {
		// The run changed the folder: it must be closed as interrupted.
		r, ok := dispatch.FindRun(runs, runID)
		if !ok || r.End == nil || r.End.Outcome != "interrupted" {
			t.Fatalf("run %s after the restart: %+v; want it ended as interrupted\n%s", runID, r.End, p2.stderr.String())
		}
		t.Logf("recovered: %s", r.End.Reason)
	}

	code, uout, uerr := c.run("undo", "w")
	after := folderState(t, dir)
	switch {
	case code == 0 && strings.Contains(uout, "not undone"):
		t.Logf("undo names what it cannot: %s", uout)
	case code == 0 && after != before:
		t.Fatalf("undo did not restore the folder:\n%s\nwant\n%s\nundo said: %s", after, before, uout)
	case code != 0 && !(crashed == before && strings.Contains(uerr, "nothing to undo")):
		t.Fatalf("undo failed (exit %d): %s%s\nfolder after the crash:\n%s", code, uout, uerr, crashed)
	}
	// The undo went through the engine, so its start-up (recovery and
	// the comparison with the baseline) is over: nothing may have been
	// dispatched again.
	v, err := cl.Get(context.Background(), "w")
	if err != nil {
		t.Fatal(err)
	}
	if v.State.Phase != watchers.PhaseIdle && v.State.Phase != watchers.PhaseDebouncing {
		t.Errorf("after the restart the watcher is %s (%s); the run's own changes were dispatched again", v.State.Phase, v.State.Reason)
	}
	runs = readRuns(t, session)
	if len(runs) != 1 {
		var ids []string
		for _, r := range runs {
			ids = append(ids, r.ID)
		}
		t.Errorf("runs in the history: %v; want only the interrupted one", ids)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(late) > 0 {
		t.Errorf("the model was asked again after the crash, with: %q", late)
	}
	p2.stop(t)
}

// seedCrashFolder makes the folder the run works on, with modes and
// modification times that undo must bring back.
func seedCrashFolder(t *testing.T, dir string) {
	files := map[string]string{
		"a.txt": "alpha", "b.txt": "bravo charlie", "c.txt": "charlie", "d.txt": "delta", "e.txt": "echo",
		"sub/one.txt": "one", "sub/deeper/two.txt": "two", "sub2/x.txt": "x", "sub2/y/z.txt": "z",
	}
	old := time.Date(2024, 1, 2, 3, 4, 5, 600000000, time.UTC)
	for rel, content := range files {
		testutil.Write(t, dir, rel, content)
		p := filepath.Join(dir, rel)
		if err := os.Chmod(p, 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		old = old.Add(time.Hour)
	}
}

// folderState lists every entry of dir: folders with their mode, files with
// mode, modification time and content.
func folderState(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if fi.IsDir() {
			lines = append(lines, fmt.Sprintf("%s/ %v", rel, fi.Mode()))
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%s %v %s %q", rel, fi.Mode(), fi.ModTime().UTC().Format(time.RFC3339Nano), data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func readRuns(t *testing.T, sessions string) []dispatch.Run {
	t.Helper()
	ents, _ := os.ReadDir(sessions)
	var all []dispatch.Run
	for _, e := range ents {
		runs, err := dispatch.ReadHistory(filepath.Join(sessions, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.Start != nil {
				all = append(all, r)
			}
		}
	}
	return all
}

// crashCLI runs tend against one TEND_HOME, with its own trash (through
// HOME and XDG_DATA_HOME) and the model stand-in's address set per
// watcher.
type crashCLI struct {
	t               *testing.T
	bin, home, data string
}

func (c crashCLI) env(crashAt int) []string {
	env := append(os.Environ(), "TEND_HOME="+c.home, "HOME="+c.data, "XDG_DATA_HOME="+c.data)
	if crashAt > 0 {
		env = append(env, fmt.Sprintf("TEND_TEST_CRASH_AT=%d", crashAt))
	}
	return env
}

func (c crashCLI) run(args ...string) (int, string, string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Env = c.env(0)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	}
	if err != nil {
		c.t.Fatalf("tend %s: %v", strings.Join(args, " "), err)
	}
	return 0, out.String(), errb.String()
}

func (c crashCLI) ok(args ...string) string {
	c.t.Helper()
	code, out, errs := c.run(args...)
	if code != 0 {
		c.t.Fatalf("tend %s: exit %d: %s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

func (c crashCLI) daemon(crashAt int) *proc {
	c.t.Helper()
	p := &proc{stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(c.bin, "daemon", "--http", "")
	p.cmd.Env = c.env(crashAt)
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
