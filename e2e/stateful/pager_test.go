package stateful

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tend-agent/tend/dispatch/modeltest"
)

// TestStandInPagesThroughOverflow checks the stand-in's side of the paged
// changes tool: it calls the tool the overflow line names, with the offset
// of the paths seen so far, until a page brings nothing new, and counts
// what the pages listed as shown.
func TestStandInPagesThroughOverflow(t *testing.T) {
	m := &model{mode: modeQuiet, gate: make(chan struct{})}
	var b strings.Builder
	b.WriteString("Sort.\n\nChanged since the last check:\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "- `b/%02d.txt`\n", i)
	}
	b.WriteString("7 more changed file(s): see them with `changes_list`\n\nIf everything is already in order, change nothing.\n")
	params := map[string]json.RawMessage{"changes_list": json.RawMessage(`{"type":"object","properties":{"offset":{"type":"integer"},"limit":{"type":"integer"}}}`)}
	conv := []modeltest.Message{{Role: "user", Content: b.String()}}
	req := func() modeltest.Request {
		return modeltest.Request{Messages: append([]modeltest.Message(nil), conv...), Tools: []string{"changes_list"}, ToolParams: params}
	}
	page := func(from, to int) string {
		var s strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&s, "- `b/%02d.txt`\n", i)
		}
		return s.String()
	}
	resp := m.answer(req())
	for _, want := range []struct {
		offset   int
		from, to int
	}{{20, 20, 25}, {25, 25, 27}, {27, 0, 0}} {
		if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "changes_list" {
			t.Fatalf("want a call of changes_list at offset %d, got %+v", want.offset, resp)
		}
		var args map[string]int
		json.Unmarshal([]byte(resp.ToolCalls[0].Arguments), &args)
		if args["offset"] != want.offset || args["limit"] != 100 {
			t.Fatalf("changes_list called with %s, want offset %d and limit 100", resp.ToolCalls[0].Arguments, want.offset)
		}
		conv = append(conv, modeltest.Message{Role: "assistant", Content: resp.Text, ToolCalls: resp.ToolCalls},
			modeltest.Message{Role: "tool", ToolName: "changes_list", Content: page(want.from, want.to)})
		resp = m.answer(req())
	}
	if len(resp.ToolCalls) != 0 || !strings.Contains(resp.Text, "done") {
		t.Fatalf("after an empty page the stand-in should finish, got %+v", resp)
	}
	p := m.snapshot()[0]
	if len(p.listed) != 20 || len(p.paged) != 7 || p.overflow != 7 || p.tool != "changes_list" {
		t.Fatalf("pass saw %d listed, %d paged (overflow %d, tool %q); want 20, 7, 7, changes_list", len(p.listed), len(p.paged), p.overflow, p.tool)
	}
}
