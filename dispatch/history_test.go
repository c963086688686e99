package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
)

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

func writeRun(t *testing.T, h *dispatch.History, id string, outcome string) {
	t.Helper()
	recs := []dispatch.Record{
		{Type: dispatch.RecRunStart, RunID: id, Trigger: dispatch.TriggerChange, Provider: "ollama", Model: "qwen3:8b",
			Changed: []dispatch.ChangedPath{{Path: "inbox/a.pdf"}, {Path: "old.txt", Removed: true}}},
		{Type: dispatch.RecMessage, RunID: id, Pass: 1, Role: "user", Content: "File every PDF.\nFolder: `/x`."},
		{Type: dispatch.RecTool, RunID: id, Pass: 1, Name: "file_move", Args: json.RawMessage(`{"from":"inbox/a.pdf","to":"Invoices/2026/a.pdf"}`), Result: "moved", DurationMs: 3},
		{Type: dispatch.RecTool, RunID: id, Pass: 1, Name: "file_read", Args: json.RawMessage(`{"path":"nope"}`), Result: "error: no such file", Error: true, DurationMs: 1},
		{Type: dispatch.RecMessage, RunID: id, Pass: 1, Role: "assistant", Content: "Filed a.pdf."},
		{Type: dispatch.RecLedger, RunID: id, Effects: json.RawMessage(`[{"op":"move","from":"inbox/a.pdf","to":"Invoices/2026/a.pdf"}]`)},
		{Type: dispatch.RecRunEnd, RunID: id, Outcome: outcome, Reason: "the model finished", PromptTokens: 1200, CompletionTokens: 85, DurationMs: 2400, Passes: 1},
	}
	for _, r := range recs {
		if err := h.Append(r); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHistoryAppendReadFormat(t *testing.T) {
	dir := t.TempDir()
	h := dispatch.OpenHistory(dir, "w-1")
	h.Clock = func() time.Time { return t0 }
	writeRun(t, h, "run-aaa", dispatch.OutcomeDone)
	writeRun(t, h, "run-bbb", dispatch.OutcomeMaxRounds)

	runs, err := dispatch.ReadHistory(h.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].ID != "run-aaa" || runs[1].ID != "run-bbb" || len(runs[0].Records) != 7 {
		t.Fatalf("runs = %+v", runs)
	}
	s := runs[0].Start
	if s == nil || s.WatcherID != "w-1" || s.Source != "watcher" || !s.Time.Equal(t0) || len(s.Changed) != 2 {
		t.Fatalf("start = %+v", s)
	}
	if runs[1].End == nil || runs[1].End.Outcome != "max-rounds" {
		t.Fatalf("end = %+v", runs[1].End)
	}
	info, err := os.Stat(h.Path())
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("session file mode = %v, %v", info.Mode(), err)
	}

	var out bytes.Buffer
	dispatch.FormatHistory(&out, runs, "run-b")
	text := out.String()
	for _, want := range []string{"== run run-bbb", "trigger change", "max-rounds in 2.4s", "model qwen3:8b (ollama)",
		"tokens 1200 in / 85 out", "- old.txt (removed)", "user:\n     File every PDF.", `> file_move {"from":"inbox/a.pdf","to":"Invoices/2026/a.pdf"}  ok (3 ms)`,
		"> file_read", "error (1 ms)", "ledger: 1 change(s): move inbox/a.pdf → Invoices/2026/a.pdf", "assistant:\n     Filed a.pdf."} {
		if !strings.Contains(text, want) {
			t.Errorf("formatted history lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "run-aaa") {
		t.Error("run filter ignored")
	}
	out.Reset()
	dispatch.FormatHistory(&out, runs, "nope")
	if !strings.Contains(out.String(), `no run "nope"`) {
		t.Errorf("unknown run: %s", out.String())
	}
}

func TestHistoryTruncatedLastLine(t *testing.T) {
	dir := t.TempDir()
	h := dispatch.OpenHistory(dir, "w-2")
	writeRun(t, h, "r1", dispatch.OutcomeDone)
	f, err := os.OpenFile(h.Path(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"run-start","runID":"r2","trig`) // the crash cut this line short
	f.Close()
	before, _ := os.ReadFile(h.Path())
	var warnings []string
	runs, err := dispatch.ReadHistoryWarn(h.Path(), func(s string) { warnings = append(warnings, s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].ID != "r1" || len(warnings) != 1 || !strings.Contains(warnings[0], "incomplete last line") {
		t.Fatalf("runs %d, warnings %q", len(runs), warnings)
	}
	after, _ := os.ReadFile(h.Path())
	if !bytes.Equal(before, after) {
		t.Fatal("reading rewrote the file")
	}
	if runs, err := dispatch.ReadHistory(dir + "/missing.jsonl"); err != nil || runs != nil {
		t.Fatalf("missing file: %v %v", runs, err)
	}
}

func TestHistoryConcurrentAppendsAndCaps(t *testing.T) {
	h := dispatch.OpenHistory(t.TempDir(), "w-3")
	big := strings.Repeat("x", 50000)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				rec := dispatch.Record{Type: dispatch.RecTool, RunID: fmt.Sprintf("r%d", g), Name: "file_read",
					Args: json.RawMessage(`{"path":"` + strings.Repeat("p", 3000) + `"}`), Result: big}
				if i == 0 {
					rec = dispatch.Record{Type: dispatch.RecRunStart, RunID: fmt.Sprintf("r%d", g)}
				}
				if err := h.Append(rec); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	runs, err := dispatch.ReadHistoryWarn(h.Path(), func(s string) { t.Error(s) })
	if err != nil || len(runs) != 8 {
		t.Fatalf("runs %d err %v", len(runs), err)
	}
	for _, r := range runs {
		if len(r.Records) != 20 {
			t.Fatalf("run %s has %d records", r.ID, len(r.Records))
		}
		tool := r.Records[1]
		if len([]rune(tool.Result)) > dispatch.MaxStoredToolResult+40 || !strings.Contains(tool.Result, "characters cut]") {
			t.Fatalf("stored result not capped: %d chars", len(tool.Result))
		}
		if len(tool.Args) > dispatch.MaxStoredArgs+60 {
			t.Fatalf("stored args not capped: %d", len(tool.Args))
		}
	}
	info, _ := os.Stat(h.Path())
	if info.Size() > 8*20*8000 {
		t.Fatalf("session file is %d bytes", info.Size())
	}
}

func TestHistoryTranscriptHasNoKey(t *testing.T) {
	srv := modeltest.NewOpenAI(t, modeltest.Sequence(
		modeltest.Calls(modeltest.Call("file_read", `{"path":"a.txt"}`)), modeltest.Text("All good.")))
	p := newProvider(t, dispatch.ProviderConfig{Kind: "openai", Model: "gpt-test", BaseURL: srv.URL + "/v1"})
	tr, err := dispatch.RunAgent(context.Background(), p, &fakeTools{}, "check a.txt", dispatch.AgentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := dispatch.OpenHistory(t.TempDir(), "w-4")
	if err := h.Append(dispatch.Record{Type: dispatch.RecRunStart, RunID: "r", Provider: p.Name(), Model: p.Model()}); err != nil {
		t.Fatal(err)
	}
	if err := h.AppendTranscript("r", 1, tr); err != nil {
		t.Fatal(err)
	}
	if err := h.Append(dispatch.Record{Type: dispatch.RecRunEnd, RunID: "r", Outcome: tr.Outcome, PromptTokens: tr.PromptTokens}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(h.Path())
	if bytes.Contains(data, []byte("sk-test")) {
		t.Fatal("the API key is in the session file")
	}
	runs, _ := dispatch.ReadHistory(h.Path())
	var types []string
	for _, r := range runs[0].Records {
		types = append(types, r.Type+":"+r.Role+r.Name)
	}
	if got := strings.Join(types, " "); got != "run-start: message:user tool:file_read message:assistant run-end:" {
		t.Fatalf("records = %s", got)
	}
}

func TestFormatHistoryUndoAndCheckRecords(t *testing.T) {
	dir := t.TempDir()
	h := dispatch.OpenHistory(dir, "w")
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for _, rec := range []dispatch.Record{
		{Type: dispatch.RecRunStart, RunID: "r1", Time: t0, Trigger: "manual"},
		{Type: dispatch.RecRunEnd, RunID: "r1", Time: t0, Outcome: "done"},
		{Type: dispatch.RecUndo, RunID: "r1", Time: t0, Outcome: "undone", Reason: "3 change(s) reversed"},
		{Type: dispatch.RecCheck, RunID: "check-1", Time: t0, Outcome: "failed", Reason: "exit status 3", DurationMs: 12},
	} {
		if err := h.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := dispatch.ReadHistory(h.Path())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	dispatch.FormatHistory(&b, runs, "")
	out := b.String()
	for _, want := range []string{"undo undone: 3 change(s) reversed", "== script check · ", "failed in 12ms", "exit status 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("history lacks %q:\n%s", want, out)
		}
	}
}
