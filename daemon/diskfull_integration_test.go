package daemon_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/internal/testutil"
	"github.com/tend-agent/tend/watchers"
)

// With TEND_HOME's disk full, the real daemon's run changes nothing: the
// tools refuse (no ledger can be written), and the run ends failed with
// the reason, in the history and in `tend status`.
func TestFullHomeDiskRunChangesNothing(t *testing.T) {
	bin := buildTend(t)
	home := testutil.Tmpfs(t, "4m")
	var mu sync.Mutex
	starts := 0
	srv := modeltest.NewOllama(t, func(req modeltest.Request) modeltest.Response {
		if req.Last().Role == "tool" {
			return modeltest.Text("done")
		}
		mu.Lock()
		starts++
		first := starts == 1
		mu.Unlock()
		if first {
			return modeltest.Calls(modeltest.Call("file_write", `{"path":"warmup.txt","content":"w"}`))
		}
		return modeltest.Calls(
			modeltest.Call("file_write", `{"path":"new.txt","content":"new"}`),
			modeltest.Call("file_delete", `{"path":"a.txt"}`),
			modeltest.Call("dir_create", `{"path":"archive"}`))
	})
	tmp := testutil.ShortTempDir(t)
	dir := filepath.Join(tmp, "folder")
	testutil.Write(t, dir, "a.txt", "alpha")
	c := crashCLI{t: t, bin: bin, home: home, data: filepath.Join(tmp, "data")}
	p := c.daemon(0)
	c.ok("add", dir, "--name", "w", "--instructions", "tidy up", "--base-url", srv.URL, "--model", "qwen3:8b", "--settle", "0")
	cl := api.NewClient(filepath.Join(home, "tend.sock"))
	var v api.View
	idle := func() bool {
		var err error
		v, err = cl.Get(context.Background(), "w")
		return err == nil && v.State.Phase == watchers.PhaseIdle
	}
	testutil.WaitFor(t, "the watcher to be idle", idle)
	c.ok("run", "w")
	testutil.WaitFor(t, "the first run to end", func() bool { return idle() && v.State.Runs == 1 }, p.stderr.String)
	if v.State.LastOutcome != dispatch.OutcomeDone {
		t.Fatalf("the first run: %s (%s)", v.State.LastOutcome, v.State.Reason)
	}

	testutil.FillDisk(t, home)
	before := folderState(t, dir)
	c.ok("run", "w")
	testutil.WaitFor(t, "the second run to fail", func() bool {
		var err error
		v, err = cl.Get(context.Background(), "w")
		return err == nil && v.State.Runs == 2
	}, p.stderr.String)
	if v.State.LastOutcome != dispatch.OutcomeFailed || !strings.Contains(v.State.Reason, "no space left") {
		t.Errorf("state after the run on a full disk: outcome %q, reason %q; want failed, saying the disk is full", v.State.LastOutcome, v.State.Reason)
	}
	if _, out, _ := c.run("status"); !strings.Contains(out, "no space left") {
		t.Errorf("tend status does not say why the run failed:\n%s", out)
	}
	if after := folderState(t, dir); after != before {
		t.Errorf("the folder changed with no ledger:\n%s\nwant\n%s", after, before)
	}
	runs := readRuns(t, filepath.Join(home, "sessions"))
	if len(runs) != 2 || runs[1].End == nil || runs[1].End.Outcome != dispatch.OutcomeFailed || !strings.Contains(runs[1].End.Reason, "no space left") {
		for _, r := range runs {
			t.Logf("run %s: end %+v", r.ID, r.End)
		}
		t.Fatalf("the history does not end the run on a full disk as failed, saying the disk is full")
	}
}
