package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/fingerprint"
	"github.com/tend-agent/tend/internal/clock"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/internal/testutil"
	"github.com/tend-agent/tend/runner"
	"github.com/tend-agent/tend/sandbox"
	"github.com/tend-agent/tend/watchers"
)

// With TEND_HOME's disk full, the ledger cannot be written: every
// mutating tool refuses with a message the model can read, the folder is
// left as it was, and the run ends failed with the reason in the history.
func TestFullHomeDiskStopsTheRun(t *testing.T) {
	h := home.Home{Dir: testutil.Tmpfs(t, "512k")}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	calls := 0
	srv := modeltest.NewOllama(t, func(req modeltest.Request) modeltest.Response {
		calls++
		if strings.Contains(req.FirstUser(), "first run") {
			if req.Last().Role == "tool" {
				return modeltest.Text("done")
			}
			return modeltest.Calls(modeltest.Call("file_write", `{"path":"warmup.txt","content":"w"}`))
		}
		if req.Last().Role == "tool" {
			return modeltest.Text("I could not change anything.")
		}
		return modeltest.Calls(
			modeltest.Call("file_write", `{"path":"new.txt","content":"new"}`),
			modeltest.Call("file_edit", `{"path":"keep.txt","old":"keep","new":"changed"}`),
			modeltest.Call("file_delete", `{"path":"old.txt"}`),
			modeltest.Call("dir_create", `{"path":"archive"}`))
	})
	r := runner.New(runner.Config{Home: h, Trash: sandbox.FreedesktopTrash{Dir: filepath.Join(t.TempDir(), "Trash")},
		Clock: clock.NewFake(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))})
	def := &watchers.Definition{ID: "00000000-0000-4000-8000-00000000000b", Name: "w", Path: t.TempDir(),
		Instructions: "tidy up", Provider: watchers.Provider{Kind: "ollama", Model: "qwen3:8b", BaseURL: srv.URL}}
	testutil.Write(t, def.Path, "keep.txt", "keep me")
	testutil.Write(t, def.Path, "old.txt", "old")
	pass := func(id, note string) watchers.PassResult {
		res := r.Pass(context.Background(), watchers.PassRequest{Def: def, RunID: id, Trigger: "manual", Pass: 1,
			Note: note, Changes: fingerprint.Changes{Added: []string{"keep.txt"}}})
		r.Finish(context.Background(), watchers.RunSummary{Def: def, RunID: id, Outcome: res.Outcome, Reason: res.Reason, Passes: 1})
		return res
	}
	if res := pass("run-1", "first run"); res.Failed {
		t.Fatalf("the first run failed: %s", res.Reason)
	}
	testutil.FillDisk(t, h.Dir)
	before := snapshotDir(t, def.Path)
	calls = 0
	res := pass("run-2", "second run")
	if !res.Failed || res.Outcome != dispatch.OutcomeFailed || !strings.Contains(res.Reason, "no space left") {
		t.Errorf("pass on a full disk: outcome %s (failed %v), reason %q; want failed, saying the disk is full", res.Outcome, res.Failed, res.Reason)
	}
	if after := snapshotDir(t, def.Path); after != before {
		t.Errorf("the folder changed with no ledger:\nbefore %s\nafter  %s", before, after)
	}
	if calls != 1 {
		t.Errorf("the model was asked %d times in the failed run; the run should stop after the refused tool", calls)
	}
	runs, err := dispatch.ReadHistory(h.Session(def.ID))
	if err != nil {
		t.Fatal(err)
	}
	run, ok := dispatch.FindRun(runs, "run-2")
	if !ok || run.End == nil || run.End.Outcome != dispatch.OutcomeFailed || !strings.Contains(run.End.Reason, "no space left") {
		t.Fatalf("history of the failed run: end %+v", run.End)
	}
	refused := false
	for _, rec := range run.Records {
		if rec.Type == dispatch.RecTool && rec.Error && strings.Contains(rec.Result, "ledger") {
			refused = true
		}
	}
	if !refused {
		t.Errorf("no tool result tells the model the ledger could not be written: %+v", run.Records)
	}
}

// snapshotDir describes every entry under dir: path, kind, mode, size,
// mtime and content.
func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if fi.IsDir() {
			b.WriteString(rel + "/ " + fi.Mode().String() + "\n")
			return nil
		}
		data, _ := os.ReadFile(p)
		b.WriteString(rel + " " + fi.Mode().String() + " " + fi.ModTime().Format(time.RFC3339Nano) + " " + string(data) + "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
