package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
)

// fakeTools records calls and answers from a table.
type fakeTools struct {
	mu      sync.Mutex
	calls   []string
	answers map[string]func(args json.RawMessage) (string, error)
}

func (f *fakeTools) Specs() []dispatch.ToolSpec { return testTools }

func (f *fakeTools) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	f.mu.Lock()
	f.calls = append(f.calls, name+" "+string(args))
	f.mu.Unlock()
	if fn, ok := f.answers[name]; ok {
		return fn(args)
	}
	return "ok", nil
}

func ollamaProvider(t *testing.T, script modeltest.Script) (*modeltest.Server, dispatch.Provider) {
	t.Helper()
	srv := modeltest.NewOllama(t, script)
	return srv, newProvider(t, dispatch.ProviderConfig{Model: "qwen3:8b", BaseURL: srv.URL})
}

func TestAgentRunsToolsAndReturnsResults(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			srv, cfg := k.new(t, modeltest.Sequence(
				modeltest.Calls(modeltest.Call("file_read", `{"path":"inbox/a.pdf"}`), modeltest.Call("file_move", `{"from":"inbox/a.pdf","to":"Invoices/2026/a.pdf"}`)),
				modeltest.Text("Filed a.pdf under Invoices/2026."),
			))
			p := newProvider(t, cfg)
			tools := &fakeTools{answers: map[string]func(json.RawMessage) (string, error){
				"file_read": func(json.RawMessage) (string, error) { return "Invoice date: 2026-03-01", nil },
				"file_move": func(json.RawMessage) (string, error) { return "", errors.New("Invoices/2026/a.pdf already exists") },
			}}
			var events []string
			tr, err := dispatch.RunAgent(context.Background(), p, tools, "file the invoices", dispatch.AgentOptions{
				OnEvent: func(e dispatch.Event) { events = append(events, e.Kind) }})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Outcome != dispatch.OutcomeDone || tr.Rounds != 2 || len(tr.ToolCalls) != 2 || srv.Calls() != 2 {
				t.Fatalf("outcome %s rounds %d toolcalls %d calls %d", tr.Outcome, tr.Rounds, len(tr.ToolCalls), srv.Calls())
			}
			if len(tools.calls) != 2 || tools.calls[0] != `file_read {"path":"inbox/a.pdf"}` {
				t.Fatalf("tool calls = %q", tools.calls)
			}
			if !tr.ToolCalls[1].Err || tr.ToolCalls[0].Err {
				t.Fatalf("error flags wrong: %+v", tr.ToolCalls)
			}
			second := srv.Requests()[1].Messages
			if len(second) != 4 || second[2].Content != "Invoice date: 2026-03-01" || second[3].Content != "error: Invoices/2026/a.pdf already exists" {
				t.Fatalf("results sent back = %+v", second)
			}
			if tr.PromptTokens == 0 || tr.CompletionTokens == 0 || tr.Ended.Before(tr.Started) {
				t.Fatalf("accounting: %+v", tr)
			}
			want := "message message tool-call tool-result message tool-call tool-result message message"
			if got := strings.Join(events, " "); got != want {
				t.Fatalf("events = %s", got)
			}
			if last := tr.Messages[len(tr.Messages)-1]; last.Content != "Filed a.pdf under Invoices/2026." {
				t.Fatalf("last message = %+v", last)
			}
		})
	}
}

func TestAgentMaxRounds(t *testing.T) {
	srv, p := ollamaProvider(t, modeltest.Sequence(modeltest.Calls(modeltest.Call("file_read", `{"path":"x"}`))))
	tr, err := dispatch.RunAgent(context.Background(), p, &fakeTools{}, "loop forever", dispatch.AgentOptions{MaxRounds: 3})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Outcome != dispatch.OutcomeMaxRounds || srv.Calls() != 3 || tr.Rounds != 3 || len(tr.ToolCalls) != 3 {
		t.Fatalf("outcome %s calls %d rounds %d", tr.Outcome, srv.Calls(), tr.Rounds)
	}
}

func TestAgentTimeoutInjectedClock(t *testing.T) {
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(4 * time.Minute) // every look at the clock costs four minutes
		return now
	}
	srv, p := ollamaProvider(t, modeltest.Sequence(modeltest.Calls(modeltest.Call("file_read", `{"path":"x"}`))))
	tr, err := dispatch.RunAgent(context.Background(), p, &fakeTools{}, "slow", dispatch.AgentOptions{Clock: clock, Timeout: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Outcome != dispatch.OutcomeTimeout || srv.Calls() >= dispatch.DefaultMaxRounds || !strings.Contains(tr.Reason, "30m0s") {
		t.Fatalf("outcome %s after %d calls: %s", tr.Outcome, srv.Calls(), tr.Reason)
	}
}

func TestAgentTimeoutCutsHangingModel(t *testing.T) {
	_, p := ollamaProvider(t, modeltest.Sequence(modeltest.Response{Hang: true}))
	tr, err := dispatch.RunAgent(context.Background(), p, &fakeTools{}, "hang", dispatch.AgentOptions{Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Outcome != dispatch.OutcomeTimeout {
		t.Fatalf("outcome %s: %s", tr.Outcome, tr.Reason)
	}
}

func TestAgentCancelStops(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			srv, cfg := k.new(t, modeltest.Sequence(modeltest.Response{Hang: true}))
			p := newProvider(t, cfg)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				if !waitFor(func() bool { return srv.Calls() == 1 }) {
					t.Error("the model was never called")
				}
				cancel()
			}()
			tr, err := dispatch.RunAgent(ctx, p, &fakeTools{}, "hang", dispatch.AgentOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Outcome != dispatch.OutcomeStopped || !strings.Contains(tr.Reason, "stopped") {
				t.Fatalf("outcome %s: %s", tr.Outcome, tr.Reason)
			}
		})
	}
}

func TestAgentCapsToolResults(t *testing.T) {
	big := strings.Repeat("é", 20000)
	srv, p := ollamaProvider(t, modeltest.Sequence(modeltest.Calls(modeltest.Call("file_read", `{"path":"big.txt"}`)), modeltest.Text("ok")))
	tools := &fakeTools{answers: map[string]func(json.RawMessage) (string, error){
		"file_read": func(json.RawMessage) (string, error) { return big, nil }}}
	tr, err := dispatch.RunAgent(context.Background(), p, tools, "read", dispatch.AgentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("é", 15000) + "\n[… 5000 characters cut]"
	if tr.ToolCalls[0].Result != want {
		t.Fatalf("result has %d chars", len([]rune(tr.ToolCalls[0].Result)))
	}
	if got := srv.Requests()[1].Last().Content; got != want {
		t.Fatalf("sent back %d chars", len([]rune(got)))
	}
}

func TestAgentProviderFailure(t *testing.T) {
	_, p := ollamaProvider(t, modeltest.Sequence(modeltest.Error(503, "overloaded")))
	tr, err := dispatch.RunAgent(context.Background(), p, &fakeTools{}, "x", dispatch.AgentOptions{})
	if !dispatch.IsProviderError(err) || tr.Outcome != dispatch.OutcomeFailed || !strings.Contains(tr.Reason, "status 503") {
		t.Fatalf("err %v outcome %s reason %s", err, tr.Outcome, tr.Reason)
	}
}

func TestAgentBadToolCalls(t *testing.T) {
	cases := []struct {
		name  string
		tools dispatch.Toolbox
		call  modeltest.ToolCall
		want  string
	}{
		{"no toolbox", nil, modeltest.Call("file_read", `{"path":"a"}`), "error: no tools are available in this run"},
		{"unknown tool", &fakeTools{}, modeltest.Call("shell_exec", `{"cmd":"rm -rf /"}`), `error: unknown tool "shell_exec"; the tools are: file_read, file_move`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, p := ollamaProvider(t, modeltest.Sequence(modeltest.Calls(c.call), modeltest.Text("sorry")))
			tr, err := dispatch.RunAgent(context.Background(), p, c.tools, "x", dispatch.AgentOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.ToolCalls) != 1 || !tr.ToolCalls[0].Err || tr.ToolCalls[0].Result != c.want {
				t.Fatalf("tool calls = %+v", tr.ToolCalls)
			}
			if c.tools == nil && len(srv.Requests()[0].Tools) != 0 {
				t.Fatalf("tools offered without a toolbox: %v", srv.Requests()[0].Tools)
			}
		})
	}
}

// waitFor polls cond every few milliseconds for up to 10 s.
func waitFor(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
	return true
}
