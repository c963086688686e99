package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/zalando/go-keyring"
)

var testTools = []dispatch.ToolSpec{
	{Name: "file_read", Description: "read a file", Parameters: map[string]any{
		"type": "object", "required": []string{"path"},
		"properties": map[string]any{"path": map[string]any{"type": "string", "description": "relative path"}}}},
	{Name: "file_move", Description: "move a file", Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"from": map[string]any{"type": "string"}, "to": map[string]any{"type": "string"}}}},
}

// staticKeys is a KeyStore for tests.
type staticKeys map[string]string

func (k staticKeys) Get(name string) (string, error) {
	if v, ok := k[name]; ok {
		return v, nil
	}
	return "", dispatch.ErrKeyNotFound
}
func (k staticKeys) Set(name, secret string) error { k[name] = secret; return nil }
func (k staticKeys) Delete(name string) error      { delete(k, name); return nil }

type providerKind struct {
	name string
	new  func(t *testing.T, script modeltest.Script, opts ...modeltest.Option) (*modeltest.Server, dispatch.ProviderConfig)
}

var kinds = []providerKind{
	{"ollama", func(t *testing.T, s modeltest.Script, opts ...modeltest.Option) (*modeltest.Server, dispatch.ProviderConfig) {
		srv := modeltest.NewOllama(t, s, opts...)
		return srv, dispatch.ProviderConfig{Kind: "ollama", Model: "qwen3:8b", BaseURL: srv.URL}
	}},
	{"openai", func(t *testing.T, s modeltest.Script, opts ...modeltest.Option) (*modeltest.Server, dispatch.ProviderConfig) {
		srv := modeltest.NewOpenAI(t, s, opts...)
		return srv, dispatch.ProviderConfig{Kind: "openai", Model: "gpt-test", BaseURL: srv.URL + "/v1"}
	}},
}

var testKeys = staticKeys{"openai": "sk-test"}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func newProvider(t *testing.T, cfg dispatch.ProviderConfig) dispatch.Provider {
	t.Helper()
	p, err := dispatch.NewProvider(context.Background(), cfg, testKeys, discard())
	if err != nil {
		t.Fatalf("NewProvider: %v", err)
	}
	return p
}

func TestProviderTextAnswer(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			srv, cfg := k.new(t, modeltest.Sequence(modeltest.Response{Text: "All three files are in order — nothing to do.", PromptTokens: 120, CompletionTokens: 17}))
			p := newProvider(t, cfg)
			msgs := []dispatch.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "sort the files"}}
			r, err := p.Chat(context.Background(), msgs, testTools)
			if err != nil {
				t.Fatal(err)
			}
			if r.Message.Content != "All three files are in order — nothing to do." || len(r.Message.ToolCalls) != 0 || r.Message.Role != "assistant" {
				t.Fatalf("reply = %+v", r.Message)
			}
			if r.PromptTokens != 120 || r.CompletionTokens != 17 {
				t.Fatalf("tokens = %d/%d, want 120/17", r.PromptTokens, r.CompletionTokens)
			}
			if r.FirstByte <= 0 {
				t.Fatalf("FirstByte not measured")
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || !reqs[0].Stream || reqs[0].FirstUser() != "sort the files" {
				t.Fatalf("requests = %+v", reqs)
			}
			if strings.Join(reqs[0].Tools, ",") != "file_read,file_move" {
				t.Fatalf("tools sent = %v", reqs[0].Tools)
			}
			if k.name == "openai" && !reqs[0].IncludeUsage {
				t.Fatalf("stream_options.include_usage not set")
			}
			if k.name == "openai" && (reqs[0].Header.Get("User-Agent") != "tend" || reqs[0].Header.Get("Authorization") != "Bearer sk-test") {
				t.Fatalf("headers = %v, want User-Agent tend and the bearer key", reqs[0].Header)
			}
		})
	}
}

func TestProviderToolCallsAndRoundTrip(t *testing.T) {
	calls := modeltest.Calls(
		modeltest.Call("file_read", `{"path":"inbox/a very long file name.pdf"}`),
		modeltest.Call("file_move", `{"from":"inbox/a.pdf","to":"Invoices/2026/a.pdf"}`),
	)
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			srv, cfg := k.new(t, modeltest.Sequence(calls, modeltest.Text("done")))
			p := newProvider(t, cfg)
			msgs := []dispatch.Message{{Role: "user", Content: "file invoices"}}
			r, err := p.Chat(context.Background(), msgs, testTools)
			if err != nil {
				t.Fatal(err)
			}
			tc := r.Message.ToolCalls
			if len(tc) != 2 || tc[0].Name != "file_read" || tc[1].Name != "file_move" || tc[0].ID == "" || tc[0].ID == tc[1].ID {
				t.Fatalf("tool calls = %+v", tc)
			}
			var args map[string]string
			if err := json.Unmarshal(tc[1].Arguments, &args); err != nil || args["to"] != "Invoices/2026/a.pdf" {
				t.Fatalf("arguments = %s (%v)", tc[1].Arguments, err)
			}
			// Send the results back: the server must see the assistant's calls and both results.
			msgs = append(msgs, r.Message,
				dispatch.Message{Role: "tool", Content: "%PDF-1.4", ToolCallID: tc[0].ID, ToolName: "file_read"},
				dispatch.Message{Role: "tool", Content: "moved", ToolCallID: tc[1].ID, ToolName: "file_move"})
			if _, err := p.Chat(context.Background(), msgs, testTools); err != nil {
				t.Fatal(err)
			}
			got := srv.Requests()[1].Messages
			if len(got) != 4 || len(got[1].ToolCalls) != 2 || got[1].ToolCalls[1].ID != tc[1].ID {
				t.Fatalf("second request messages = %+v", got)
			}
			if got[3].Role != "tool" || got[3].Content != "moved" || got[3].ToolCallID != tc[1].ID {
				t.Fatalf("tool result message = %+v", got[3])
			}
			var sent map[string]string
			if err := json.Unmarshal([]byte(got[1].ToolCalls[0].Arguments), &sent); err != nil || sent["path"] != "inbox/a very long file name.pdf" {
				t.Fatalf("arguments sent back = %q", got[1].ToolCalls[0].Arguments)
			}
		})
	}
}

func TestProviderErrors(t *testing.T) {
	cases := []struct {
		name     string
		resp     modeltest.Response
		model    string
		wantKind string
		wantMsg  string
	}{
		{"server error", modeltest.Error(500, "boom"), "", dispatch.FailServer, "status 500"},
		{"bad gateway", modeltest.Error(502, "upstream"), "", dispatch.FailServer, "status 502"},
		{"malformed stream", modeltest.Response{Text: "hello there friend", Malformed: true}, "", dispatch.FailMalformed, "could not be read"},
		{"truncated stream", modeltest.Response{Text: "hello there friend", Truncated: true}, "", dispatch.FailMalformed, "ended"},
		{"unknown model", modeltest.Text("x"), "no-such-model", dispatch.FailModelNotFound, "model no-such-model not found on the server"},
	}
	for _, k := range kinds {
		for _, c := range cases {
			t.Run(k.name+"/"+c.name, func(t *testing.T) {
				_, cfg := k.new(t, modeltest.Sequence(c.resp))
				if c.model != "" {
					cfg.Model = c.model
				}
				p := newProvider(t, cfg)
				_, err := p.Chat(context.Background(), []dispatch.Message{{Role: "user", Content: "hi"}}, testTools)
				var pe *dispatch.ProviderError
				if !errors.As(err, &pe) || pe.Kind != c.wantKind || !strings.Contains(err.Error(), c.wantMsg) {
					t.Fatalf("err = %v (%#v), want kind %s containing %q", err, pe, c.wantKind, c.wantMsg)
				}
				if !dispatch.IsProviderError(err) {
					t.Fatal("IsProviderError = false")
				}
			})
		}
	}
}

func TestProviderConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	for _, c := range []struct {
		cfg  dispatch.ProviderConfig
		want string
	}{
		{dispatch.ProviderConfig{Kind: "ollama", Model: "m", BaseURL: "http://" + addr}, "cannot reach the Ollama server at http://" + addr + ": is it running? start it with `ollama serve`"},
		{dispatch.ProviderConfig{Kind: "openai", Model: "m", BaseURL: "http://" + addr + "/v1"}, "cannot reach the server at http://" + addr + "/v1"},
	} {
		p := newProvider(t, c.cfg)
		_, err := p.Chat(context.Background(), []dispatch.Message{{Role: "user", Content: "hi"}}, nil)
		var pe *dispatch.ProviderError
		if !errors.As(err, &pe) || pe.Kind != dispatch.FailUnreachable || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: err = %v", c.cfg.Kind, err)
		}
	}
}

func TestOllamaHostFromEnvironment(t *testing.T) {
	srv := modeltest.NewOllama(t, modeltest.Sequence(modeltest.Text("ok")))
	t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
	p := newProvider(t, dispatch.ProviderConfig{Model: "qwen3:8b"})
	if _, err := p.Chat(context.Background(), []dispatch.Message{{Role: "user", Content: "hi"}}, nil); err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 1 || p.Name() != "ollama" {
		t.Fatalf("calls = %d, name = %s", srv.Calls(), p.Name())
	}
}

func TestOpenAIUnauthorized(t *testing.T) {
	srv := modeltest.NewOpenAI(t, modeltest.Sequence(modeltest.Text("ok")), modeltest.WithKey("sk-right"))
	secret := "sk-wrong-secret-value"
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	p, err := dispatch.NewProvider(context.Background(), dispatch.ProviderConfig{Kind: "openai", Model: "gpt-test", BaseURL: srv.URL + "/v1"},
		staticKeys{"openai": secret}, log)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(context.Background(), []dispatch.Message{{Role: "user", Content: "hi"}}, nil)
	var pe *dispatch.ProviderError
	if !errors.As(err, &pe) || pe.Kind != dispatch.FailAuth || !strings.Contains(err.Error(), "refused the API key: set it with `tend key set openai`") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(logs.String(), secret) {
		t.Fatal("the key leaked into an error or the log")
	}
}

func TestAutoModelPick(t *testing.T) {
	cases := []struct {
		name   string
		models []modeltest.Model
		want   string
		errHas string
	}{
		{"first with tools capability", []modeltest.Model{
			{Name: "nomic-embed-text:latest", Capabilities: []string{"embedding"}},
			{Name: "gemma3:4b", Capabilities: []string{"completion", "vision"}},
			{Name: "qwen3:8b", Capabilities: []string{"completion", "tools", "thinking"}},
			{Name: "llama3.1:8b", Capabilities: []string{"completion", "tools"}},
		}, "qwen3:8b", ""},
		{"old server: family heuristic", []modeltest.Model{{Name: "gemma2:2b"}, {Name: "llama3.1:8b"}}, "llama3.1:8b", ""},
		{"none tool-capable", []modeltest.Model{{Name: "gemma3:4b", Capabilities: []string{"completion"}}}, "", "ollama pull"},
		{"no models at all", []modeltest.Model{}, "", "has no models"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := modeltest.NewOllama(t, nil, modeltest.WithModels(c.models...))
			var logs bytes.Buffer
			p, err := dispatch.NewProvider(context.Background(), dispatch.ProviderConfig{BaseURL: srv.URL}, nil, slog.New(slog.NewTextHandler(&logs, nil)))
			if c.errHas != "" {
				var pe *dispatch.ProviderError
				if !errors.As(err, &pe) || pe.Kind != dispatch.FailNoModel || !strings.Contains(err.Error(), c.errHas) {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Model() != c.want || !strings.Contains(logs.String(), "no model set; using "+c.want) {
				t.Fatalf("model = %s, log = %s", p.Model(), logs.String())
			}
		})
	}
	t.Run("openai lists models", func(t *testing.T) {
		srv := modeltest.NewOpenAI(t, nil, modeltest.WithModels(modeltest.Model{Name: "local-model"}))
		p, err := dispatch.NewProvider(context.Background(), dispatch.ProviderConfig{Kind: "openai", BaseURL: srv.URL + "/v1"}, testKeys, discard())
		if err != nil || p.Model() != "local-model" {
			t.Fatalf("model = %v, err = %v", p, err)
		}
	})
}

func TestUnknownProviderKind(t *testing.T) {
	_, err := dispatch.NewProvider(context.Background(), dispatch.ProviderConfig{Kind: "anthropic"}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown provider "anthropic"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestKeyringStore(t *testing.T) {
	keyring.MockInit()
	t.Setenv("OPENAI_API_KEY", "")
	keys := dispatch.Keys(discard())
	if _, err := keys.Get("openai"); !errors.Is(err, dispatch.ErrKeyNotFound) {
		t.Fatalf("Get before Set: %v", err)
	}
	if err := keys.Set("openai", "sk-123"); err != nil {
		t.Fatal(err)
	}
	if v, err := keys.Get("openai"); err != nil || v != "sk-123" {
		t.Fatalf("Get = %q, %v", v, err)
	}
	if err := keys.Set("openai", ""); err == nil {
		t.Fatal("empty key accepted")
	}
	if err := keys.Set("bad name", "x"); err == nil {
		t.Fatal("bad name accepted")
	}
	if err := keys.Delete("openai"); err != nil {
		t.Fatal(err)
	}
	if err := keys.Delete("openai"); !errors.Is(err, dispatch.ErrKeyNotFound) {
		t.Fatalf("second Delete: %v", err)
	}
}

func TestKeyringEnvFallback(t *testing.T) {
	keyring.MockInitWithError(errors.New("The name org.freedesktop.secrets was not provided by any .service files"))
	t.Cleanup(keyring.MockInit)
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	var logs bytes.Buffer
	keys := dispatch.Keys(slog.New(slog.NewTextHandler(&logs, nil)))
	for range 3 {
		if v, err := keys.Get("openai"); err != nil || v != "sk-from-env" {
			t.Fatalf("Get = %q, %v", v, err)
		}
	}
	if n := strings.Count(logs.String(), "no OS keyring reachable"); n != 1 {
		t.Fatalf("fallback noted %d times, want once: %s", n, logs.String())
	}
	if strings.Contains(logs.String(), "sk-from-env") {
		t.Fatal("key logged")
	}
	if err := keys.Set("openai", "x"); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("Set without keyring: %v", err)
	}
	t.Setenv("OPENAI_API_KEY", "")
	if _, err := keys.Get("openai"); !errors.Is(err, dispatch.ErrKeyNotFound) {
		t.Fatalf("Get without env: %v", err)
	}
}

func TestProviderMisconfiguration(t *testing.T) {
	t.Run("ollama model without tools", func(t *testing.T) {
		srv := modeltest.NewOllama(t, modeltest.Sequence(modeltest.Error(400, "registry.ollama.ai/library/gemma3:4b does not support tools")))
		p := newProvider(t, dispatch.ProviderConfig{Model: "qwen3:8b", BaseURL: srv.URL})
		_, err := p.Chat(context.Background(), []dispatch.Message{{Role: "user", Content: "hi"}}, testTools)
		var pe *dispatch.ProviderError
		if !errors.As(err, &pe) || pe.Kind != dispatch.FailNoTools || !strings.Contains(err.Error(), "cannot call tools") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("openai base URL without /v1", func(t *testing.T) {
		srv := modeltest.NewOpenAI(t, nil)
		p := newProvider(t, dispatch.ProviderConfig{Kind: "openai", Model: "gpt-test", BaseURL: srv.URL})
		_, err := p.Chat(context.Background(), []dispatch.Message{{Role: "user", Content: "hi"}}, testTools)
		var pe *dispatch.ProviderError
		if !errors.As(err, &pe) || pe.Kind != dispatch.FailServer || !strings.Contains(err.Error(), "ends in /v1") {
			t.Fatalf("err = %v", err)
		}
	})
}
