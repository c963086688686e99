package stateful

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
)

// TestStandInPagesThroughOverflow checks the stand-in against tend's own
// prompt and changes tool: it calls the tool the overflow line names until
// a page brings nothing new, and counts what the pages listed as shown.
func TestStandInPagesThroughOverflow(t *testing.T) {
	m := &model{mode: modeQuiet, gate: make(chan struct{})}
	var changed []dispatch.ChangedPath
	for i := 0; i < 227; i++ {
		changed = append(changed, dispatch.ChangedPath{Path: fmt.Sprintf("b/%03d.txt", i), Removed: i%7 == 0})
	}
	prompt := dispatch.BuildPrompt(dispatch.PromptInput{Instructions: "Sort.", Folder: "/f", Changed: changed, FirstPass: true})
	spec := dispatch.ChangesToolSpec()
	params, _ := json.Marshal(spec.Parameters)
	conv := []modeltest.Message{{Role: "user", Content: prompt}}
	req := func() modeltest.Request {
		return modeltest.Request{Messages: append([]modeltest.Message(nil), conv...),
			Tools: []string{spec.Name}, ToolParams: map[string]json.RawMessage{spec.Name: params}}
	}
	resp := m.answer(req())
	for calls := 0; len(resp.ToolCalls) > 0; calls++ {
		if calls > 10 || resp.ToolCalls[0].Name != spec.Name {
			t.Fatalf("call %d: want a call of %s, got %+v", calls, spec.Name, resp)
		}
		out, err := dispatch.ListChanges(changed, json.RawMessage(resp.ToolCalls[0].Arguments))
		if err != nil {
			t.Fatalf("%s refused %s: %v", spec.Name, resp.ToolCalls[0].Arguments, err)
		}
		conv = append(conv, modeltest.Message{Role: "assistant", Content: resp.Text, ToolCalls: resp.ToolCalls},
			modeltest.Message{Role: "tool", ToolName: spec.Name, Content: out})
		resp = m.answer(req())
	}
	if !strings.Contains(resp.Text, "done") {
		t.Fatalf("the stand-in should finish after the last page, got %+v", resp)
	}
	p := m.snapshot()[0]
	if p.tool != spec.Name || p.overflow != 207 || len(p.listed) != 20 || len(p.paged) != 207 {
		t.Fatalf("pass saw %d listed and %d paged (overflow %d, tool %q); want 20, 207, 207, %s",
			len(p.listed), len(p.paged), p.overflow, p.tool, spec.Name)
	}
}
