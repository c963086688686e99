package dispatch_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
)

// A hostile or broken model server streams an endless answer. The run must
// stop soon after the answer passes the cap, with a reason that says so,
// and the daemon must not hold the flood in memory.
func TestFloodedAnswerIsCutOff(t *testing.T) {
	const flood = 1 << 30 // 1 GiB offered
	cases := []struct {
		name     string
		kind     providerKind
		oneEvent bool
		oneLine  bool
	}{
		{"ollama", kinds[0], false, false},
		{"openai", kinds[1], false, false},
		{"openai one endless event", kinds[1], true, false},
		{"openai one endless line", kinds[1], false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, cfg := tc.kind.new(t, modeltest.Sequence(modeltest.Response{Text: "start", Flood: flood, FloodOneEvent: tc.oneEvent, FloodOneLine: tc.oneLine}))
			p := newProvider(t, cfg)
			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			tr, err := dispatch.RunAgent(ctx, p, nil, "tidy up", dispatch.AgentOptions{})
			if err == nil || tr.Outcome != dispatch.OutcomeFailed {
				t.Fatalf("outcome %s, err %v; want a failed run", tr.Outcome, err)
			}
			// The OpenAI client reads each "data:" line as one message, so
			// an event of many lines is refused at its first line that is
			// not JSON; one endless line meets the event cap.
			malformedOK := tc.oneEvent && strings.Contains(tr.Reason, "could not be read")
			if !strings.Contains(tr.Reason, "too long") && !strings.Contains(tr.Reason, "too large") && !malformedOK {
				t.Errorf("reason %q should say the answer was too long", tr.Reason)
			}
			// The client stopped reading soon after the cap: what the server
			// got out is the cap plus what the socket buffers and the
			// protocol overhead hold, nowhere near the flood.
			sent := srv.Sent()
			t.Logf("the server got %d KiB of the flood out before the client stopped reading", sent>>10)
			if sent > 64<<20 {
				t.Errorf("the server streamed %d MiB before the client stopped reading; want it cut off near the 1 MiB cap", sent>>20)
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if grow := int64(after.HeapAlloc) - int64(before.HeapAlloc); grow > 64<<20 {
				t.Errorf("heap grew by %d MiB while the answer was read", grow>>20)
			}
			runtime.KeepAlive(tr)
		})
	}
}

// A tool call whose arguments are larger than any real tool needs gets a
// tool error back; the tool itself is never called.
func TestHugeToolArgumentsAreRefused(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			huge, _ := json.Marshal(map[string]string{"path": "a.txt", "pad": strings.Repeat("x", 1100<<10)})
			_, cfg := k.new(t, modeltest.Sequence(
				modeltest.Calls(modeltest.Call("file_read", string(huge))),
				modeltest.Text("done"),
			))
			p := newProvider(t, cfg)
			tools := &fakeTools{}
			tr, err := dispatch.RunAgent(context.Background(), p, tools, "tidy up", dispatch.AgentOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tools.calls) != 0 {
				t.Errorf("the tool was called with %d bytes of arguments", len(huge))
			}
			if len(tr.ToolCalls) != 1 || !tr.ToolCalls[0].Err || !strings.Contains(tr.ToolCalls[0].Result, "too large") {
				t.Fatalf("tool calls %+v: want one refused call saying the arguments are too large", summary(tr.ToolCalls))
			}
			if len(tr.ToolCalls[0].Args) > 1<<20 {
				t.Errorf("the transcript keeps all %d bytes of the refused arguments", len(tr.ToolCalls[0].Args))
			}
		})
	}
}

func summary(calls []dispatch.ToolCallRecord) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Name+": "+c.Result[:min(len(c.Result), 200)])
	}
	return out
}
