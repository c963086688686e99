package dispatch_test

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/internal/testutil"
)

// A line cut short (by a crash during a write) must not swallow the record
// appended after it: the reader skips the torn line and finds the next.
func TestHistoryTornLineDoesNotSwallowNextRecord(t *testing.T) {
	h := dispatch.OpenHistory(t.TempDir(), "w-1")
	h.Clock = func() time.Time { return t0 }
	if err := h.Append(dispatch.Record{Type: dispatch.RecRunStart, RunID: "run-1"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(h.Path(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"message","runID":"run-1","role":"assis`) // the crash came here
	f.Close()
	if err := h.Append(dispatch.Record{Type: dispatch.RecRunEnd, RunID: "run-1", Outcome: "interrupted"}); err != nil {
		t.Fatal(err)
	}
	runs, err := dispatch.ReadHistory(h.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].End == nil || runs[0].End.Outcome != "interrupted" {
		t.Fatalf("the record after a torn line was lost: runs %+v", runs)
	}
}

// A write that fails part-way (the disk filled up) leaves no partial line:
// the file goes back to its earlier length, and once there is room again
// the next record reads back whole.
func TestHistoryAppendOnFullDiskIsWholeOrNothing(t *testing.T) {
	dir := testutil.Tmpfs(t, "256k")
	h := dispatch.OpenHistory(dir, "w-1")
	h.Clock = func() time.Time { return t0 }
	if err := h.Append(dispatch.Record{Type: dispatch.RecRunStart, RunID: "run-1"}); err != nil {
		t.Fatal(err)
	}
	filler := testutil.FillDisk(t, dir)
	before, err := os.ReadFile(h.Path())
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", dispatch.MaxStoredMessage-10)
	err = h.AppendTranscript("run-1", 1, dispatch.Transcript{Messages: []dispatch.Message{
		{Role: "assistant", Content: big}, {Role: "assistant", Content: big}, {Role: "assistant", Content: big}}})
	if err == nil {
		t.Fatalf("appending 96 KiB to a full disk succeeded")
	}
	if !strings.Contains(err.Error(), "no space left") {
		t.Errorf("error %q does not say the disk is full", err)
	}
	after, _ := os.ReadFile(h.Path())
	if string(after) != string(before) {
		t.Fatalf("a failed append left %d bytes behind", len(after)-len(before))
	}
	os.Remove(filler)
	if err := h.Append(dispatch.Record{Type: dispatch.RecRunEnd, RunID: "run-1", Outcome: "failed"}); err != nil {
		t.Fatal(err)
	}
	var warned []string
	runs, err := dispatch.ReadHistoryWarn(h.Path(), func(s string) { warned = append(warned, s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].End == nil || len(warned) > 0 {
		t.Fatalf("after a failed append: runs %+v, warnings %q", runs, warned)
	}
}

// A session keeps room past its end: when the disk fills up during a run,
// the records that end the run (and say why it failed) still fit.
func TestHistoryKeepsRoomOnFullDisk(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("preallocation is used on Linux")
	}
	dir := testutil.Tmpfs(t, "512k")
	h := dispatch.OpenHistory(dir, "w-1")
	h.Clock = func() time.Time { return t0 }
	if err := h.Append(dispatch.Record{Type: dispatch.RecRunStart, RunID: "run-1"}); err != nil {
		t.Fatal(err)
	}
	testutil.FillDisk(t, dir)
	reason := "tend could not write the undo ledger: no space left on device " + strings.Repeat(".", 16<<10)
	if err := h.Append(dispatch.Record{Type: dispatch.RecRunEnd, RunID: "run-1", Outcome: "failed", Reason: reason}); err != nil {
		t.Fatalf("no room left for the run's end: %v", err)
	}
	runs, err := dispatch.ReadHistory(h.Path())
	if err != nil || len(runs) != 1 || runs[0].End == nil || runs[0].End.Reason != reason {
		t.Fatalf("runs %+v (%v)", runs, err)
	}
}
