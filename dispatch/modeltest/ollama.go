package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// NewOllama starts a stand-in of the Ollama API: POST /api/chat (NDJSON
// stream, or one JSON object with "stream": false), GET /api/tags, POST
// /api/show (with capabilities) and GET /api/version. Its URL is the value
// for OLLAMA_HOST or a watcher's baseURL.
func NewOllama(t testing.TB, script Script, opts ...Option) *Server {
	cfg := config{models: []Model{{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}}}}
	for _, o := range opts {
		o(&cfg)
	}
	return newServer(t, script, cfg, func(s *Server) http.Handler {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, map[string]string{"version": "0.17.4"})
		})
		mux.HandleFunc("GET /api/tags", s.ollamaTags)
		mux.HandleFunc("POST /api/show", s.ollamaShow)
		mux.HandleFunc("POST /api/chat", s.ollamaChat)
		return mux
	})
}

var ollamaEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (s *Server) ollamaTags(w http.ResponseWriter, r *http.Request) {
	models := []map[string]any{}
	for i, m := range s.cfg.models {
		models = append(models, map[string]any{
			"name": m.Name, "model": m.Name, "modified_at": ollamaEpoch.Format(time.RFC3339),
			"size": 1000 + i, "digest": fmt.Sprintf("%064x", i+1),
			"details": map[string]any{"format": "gguf", "family": "test"},
		})
	}
	writeJSON(w, 200, map[string]any{"models": models})
}

func (s *Server) ollamaShow(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, map[string]string{"error": "invalid request body"})
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	for _, m := range s.cfg.models {
		if m.Name == name {
			resp := map[string]any{"modelfile": "FROM " + name, "template": "{{ .Prompt }}",
				"details": map[string]any{"format": "gguf", "family": "test"}, "model_info": map[string]any{}}
			if m.Capabilities != nil {
				resp["capabilities"] = m.Capabilities
			}
			writeJSON(w, 200, resp)
			return
		}
	}
	writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", name)})
}

type ollamaWireMessage struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolName   string   `json:"tool_name"`
	ToolCallID string   `json:"tool_call_id"`
	Images     [][]byte `json:"images"` // base64 in JSON
}

func (s *Server) ollamaChat(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string              `json:"model"`
		Messages []ollamaWireMessage `json:"messages"`
		Stream   *bool               `json:"stream"`
		Tools    []struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, 400, map[string]string{"error": "invalid request body: " + err.Error()})
		return
	}
	req := Request{Model: body.Model, Stream: body.Stream == nil || *body.Stream, Header: r.Header.Clone()}
	for _, m := range body.Messages {
		msg := Message{Role: m.Role, Content: m.Content, ToolName: m.ToolName, ToolCallID: m.ToolCallID, Images: m.Images}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: string(tc.Function.Arguments)})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range body.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
		if req.ToolParams == nil {
			req.ToolParams = map[string]json.RawMessage{}
		}
		req.ToolParams[t.Function.Name] = t.Function.Parameters
	}
	resp := s.record(req)
	if !s.wait(r, resp) {
		return
	}
	switch {
	case resp.Hang:
		s.hang(r)
		return
	case resp.Status != 0 && resp.Status != 200:
		writeJSON(w, resp.Status, map[string]string{"error": resp.Error})
		return
	case !s.hasModel(body.Model):
		writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", body.Model)})
		return
	}
	pt, ct := estimate(req.Messages, resp.Text, resp.ToolCalls)
	if resp.PromptTokens != 0 {
		pt = resp.PromptTokens
	}
	if resp.CompletionTokens != 0 {
		ct = resp.CompletionTokens
	}
	calls := make([]map[string]any, 0, len(resp.ToolCalls))
	for i, tc := range resp.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", s.Calls(), i)
		}
		calls = append(calls, map[string]any{"id": id,
			"function": map[string]any{"index": i, "name": tc.Name, "arguments": json.RawMessage(tc.Arguments)}})
	}
	reason := "stop"
	final := func(msg map[string]any) map[string]any {
		return map[string]any{"model": body.Model, "created_at": ollamaEpoch.Format(time.RFC3339Nano), "message": msg,
			"done": true, "done_reason": reason, "total_duration": 1200000, "load_duration": 1000,
			"prompt_eval_count": pt, "prompt_eval_duration": 1000, "eval_count": ct, "eval_duration": 1000}
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": resp.Text}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		writeJSON(w, 200, final(msg))
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(200)
	flusher, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	send := func(v any) bool {
		if err := enc.Encode(v); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	chunk := func(msg map[string]any) map[string]any {
		return map[string]any{"model": body.Model, "created_at": ollamaEpoch.Format(time.RFC3339Nano), "message": msg, "done": false}
	}
	pieces := split(resp.Text, 8)
	if len(pieces) == 0 {
		pieces = []string{""}
	}
	for i, p := range pieces {
		send(chunk(map[string]any{"role": "assistant", "content": p}))
		if i == 0 && resp.Malformed {
			_, _ = w.Write([]byte("{\"model\": \"" + body.Model + "\", \"message\": {\"role\": \"assist\n"))
			return
		}
	}
	if resp.Flood > 0 {
		s.flood(r, resp.Flood, func(p string) bool { return send(chunk(map[string]any{"role": "assistant", "content": p})) })
	}
	for _, c := range calls {
		send(chunk(map[string]any{"role": "assistant", "content": "", "tool_calls": []any{c}}))
	}
	if resp.Truncated {
		return
	}
	send(final(map[string]any{"role": "assistant", "content": ""}))
}
