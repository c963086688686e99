package dispatch_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/tend-agent/tend/dispatch"
)

// TestFormatHistoryEscapesNames fills every field `tend history` shows with
// line breaks and terminal escapes: no line of the output may be forged.
func TestFormatHistoryEscapesNames(t *testing.T) {
	dir := t.TempDir()
	h := dispatch.OpenHistory(dir, "w")
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	evil := "x\n== run FORGED · done\x1b[2K"
	effects, _ := json.Marshal([]map[string]any{{"op": "move", "path": evil, "to": "b\nFORGED"}})
	for _, rec := range []dispatch.Record{
		{Type: dispatch.RecRunStart, RunID: "r1", Time: t0, Trigger: "manual\nFORGED", Provider: "p\nFORGED",
			Model: "m\rFORGED", Changed: []dispatch.ChangedPath{{Path: evil}}},
		{Type: dispatch.RecTool, RunID: "r1", Time: t0, Pass: 1, Name: "file_read\nFORGED", Args: json.RawMessage(`{"path":"a\nFORGED"}`),
			Result: "line\nFORGED"},
		{Type: dispatch.RecLedger, RunID: "r1", Time: t0, Effects: effects},
		{Type: dispatch.RecRunEnd, RunID: "r1", Time: t0, Outcome: "done\nFORGED", Reason: "why\nFORGED"},
		{Type: dispatch.RecUndo, RunID: "r1", Time: t0, Outcome: "undone\nFORGED", Reason: "r\nFORGED"},
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
	for _, line := range strings.Split(out, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "FORGED") || strings.HasPrefix(l, "== run FORGED") {
			t.Errorf("a field forged the line %q:\n%s", line, out)
		}
		for _, r := range line {
			if r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
				t.Errorf("line %q carries %U raw", line, r)
			}
		}
	}
	if !strings.Contains(out, `"x\n== run FORGED · done\x1b[2K"`) {
		t.Errorf("the changed path is not shown escaped:\n%s", out)
	}
}

// TestListChangesEscapesNames: changes_list writes names as the prompt and
// the file tools do, escaped, so the model can use them.
func TestListChangesEscapesNames(t *testing.T) {
	out, err := dispatch.ListChanges([]dispatch.ChangedPath{{Path: "a\nb.txt"}}, json.RawMessage(`{"offset":0}`))
	if err != nil || !strings.Contains(out, "`\"a\\nb.txt\"`") {
		t.Fatalf("changes_list: %q, %v", out, err)
	}
}
