package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/sandbox"
)

// TestUndoRefusesRunIDOutsideRuns plants a ledger outside the watcher's runs
// folder and asks undo for it by a run id that climbs out: undo must refuse
// the id and not touch the folder.
func TestUndoRefusesRunIDOutsideRuns(t *testing.T) {
	f := newFixture(t, modeltest.Sequence(modeltest.Text("ok")))
	planted := filepath.Join(f.h.Runs(), "x")
	if err := os.MkdirAll(planted, 0o700); err != nil {
		t.Fatal(err)
	}
	l := sandbox.NewLedger(f.def.ID, "x")
	l.Effects = append(l.Effects, sandbox.Effect{Seq: 1, Op: sandbox.OpMkdir, Path: "planted",
		After: sandbox.Meta{Exists: true, Kind: "dir", Mode: 0o755}})
	if err := l.Save(filepath.Join(planted, "ledger.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(f.def.Path, "planted"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"../x", "../../runs/x", "/etc", "x/..", "20260302T090000Z-0000000a/../../x"} {
		_, err := f.r.Undo(context.Background(), f.def, id)
		if err == nil || !strings.Contains(err.Error(), "not a run id") {
			t.Fatalf("undo --run %q: want a refusal naming the bad run id, got %v", id, err)
		}
	}
	if _, err := os.Stat(filepath.Join(f.def.Path, "planted")); err != nil {
		t.Fatalf("the planted ledger was undone: %v", err)
	}
}
