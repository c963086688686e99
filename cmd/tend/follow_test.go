package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/daemon/daemontest"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/watchers"
)

// failingRunner calls one tool and then fails, as a run whose model
// server went away would.
type failingRunner struct{ h home.Home }

func (r failingRunner) Pass(ctx context.Context, req watchers.PassRequest) watchers.PassResult {
	hist := dispatch.OpenHistory(r.h.Sessions(), req.Def.ID)
	hist.Append(dispatch.Record{Type: dispatch.RecRunStart, RunID: req.RunID, WatcherID: req.Def.ID, Source: dispatch.SourceWatcher, Trigger: req.Trigger, Provider: "ollama", Model: "m"})
	hist.Append(dispatch.Record{Type: dispatch.RecTool, RunID: req.RunID, Name: "file_tree", Args: json.RawMessage(`{"path":"."}`), Result: "a.txt"})
	return watchers.PassResult{Outcome: "failed", Reason: "the model server stopped answering", Failed: true}
}

func (r failingRunner) Finish(ctx context.Context, sum watchers.RunSummary) {
	dispatch.OpenHistory(r.h.Sessions(), sum.Def.ID).Append(dispatch.Record{Type: dispatch.RecRunEnd, RunID: sum.RunID, Outcome: sum.Outcome, Reason: sum.Reason, Passes: sum.Passes})
}

func (failingRunner) Undo(ctx context.Context, def *watchers.Definition, runID string) (api.UndoResponse, error) {
	return api.UndoResponse{}, nil
}

func (failingRunner) History(def *watchers.Definition) (json.RawMessage, error) {
	return []byte("[]"), nil
}

func TestRunFollow(t *testing.T) {
	g, _ := startCLIDaemon(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644)
	if _, err := run(t, g, "add", dir, "--name", "inbox", "--instructions", "tidy", "--responsiveness", "fast"); err != nil {
		t.Fatal(err)
	}
	waitCLI(t, g, func(v api.View) bool { return v.State.Phase == watchers.PhaseIdle })
	out, err := run(t, g, "run", "inbox", "--follow")
	if err != nil {
		t.Fatalf("run --follow of a good run: %v\n%s", err, out)
	}
	for _, want := range []string{"Everything is in order.", "done"} {
		if !strings.Contains(out, want) {
			t.Errorf("run --follow printed no %q:\n%s", want, out)
		}
	}
}

func TestRunFollowFailed(t *testing.T) {
	h := home.Home{Dir: t.TempDir()}
	daemontest.Start(t, daemon.Config{Home: h, Runner: failingRunner{h}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "test"})
	g := &globalOptions{home: h.Dir}
	dir := t.TempDir()
	if _, err := run(t, g, "add", dir, "--name", "inbox", "--instructions", "tidy", "--responsiveness", "fast"); err != nil {
		t.Fatal(err)
	}
	waitCLI(t, g, func(v api.View) bool { return v.State.Phase == watchers.PhaseIdle })
	out, err := run(t, g, "run", "inbox", "--follow")
	var ee *exitError
	if !asExit(err, &ee) || ee.code != 1 {
		t.Fatalf("run --follow of a failed run: err %v, want exit code 1\n%s", err, out)
	}
	for _, want := range []string{"file_tree", "failed", "the model server stopped answering"} {
		if !strings.Contains(out+err.Error(), want) {
			t.Errorf("run --follow printed no %q:\n%s\n%v", want, out, err)
		}
	}
}
