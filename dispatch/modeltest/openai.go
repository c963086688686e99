package modeltest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// NewOpenAI starts a stand-in of the OpenAI chat-completions API: POST
// /v1/chat/completions (server-sent events when "stream" is true, with
// content and tool-call deltas split across chunks, a usage chunk when
// stream_options.include_usage is set, then "data: [DONE]") and GET
// /v1/models. Requests without the right bearer key get a 401. Use
// srv.URL+"/v1" as the base URL.
func NewOpenAI(t testing.TB, script Script, opts ...Option) *Server {
	cfg := config{models: []Model{{Name: "gpt-test"}}, key: "sk-test"}
	for _, o := range opts {
		o(&cfg)
	}
	return newServer(t, script, cfg, func(s *Server) http.Handler {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /v1/models", s.auth(s.openaiModels))
		mux.HandleFunc("POST /v1/chat/completions", s.auth(s.openaiChat))
		return mux
	})
}

func openaiError(w http.ResponseWriter, status int, typ, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
}

func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.key != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.key {
			openaiError(w, 401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
			return
		}
		h(w, r)
	}
}

func (s *Server) openaiModels(w http.ResponseWriter, r *http.Request) {
	data := []map[string]any{}
	for _, m := range s.cfg.models {
		data = append(data, map[string]any{"id": m.Name, "object": "model", "created": 1767225600, "owned_by": "modeltest"})
	}
	writeJSON(w, 200, map[string]any{"object": "list", "data": data})
}

// openaiContent reads a message content that is a string, null or an array
// of text and image_url parts. Pictures must be base64 data URLs (the
// stand-in fetches nothing); others are an error, as a server that cannot
// reach the URL answers.
func openaiContent(raw json.RawMessage) (string, [][]byte, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", nil, nil
	}
	var b strings.Builder
	var images [][]byte
	for _, p := range parts {
		switch p.Type {
		case "text":
			b.WriteString(p.Text)
		case "image_url":
			meta, data, ok := strings.Cut(p.ImageURL.URL, ",")
			if !ok || !strings.HasPrefix(meta, "data:image/") || !strings.HasSuffix(meta, ";base64") {
				return "", nil, fmt.Errorf("image_url must be a data:image/...;base64 URL")
			}
			img, err := base64.StdEncoding.DecodeString(data)
			if err != nil {
				return "", nil, fmt.Errorf("image_url data is not base64: %v", err)
			}
			images = append(images, img)
		default:
			return "", nil, fmt.Errorf("unknown content part type %q", p.Type)
		}
	}
	return b.String(), images, nil
}

func (s *Server) openaiChat(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
			Name       string `json:"name"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		openaiError(w, 400, "invalid_request_error", "invalid_json", "could not parse the request body")
		return
	}
	req := Request{Model: body.Model, Stream: body.Stream, IncludeUsage: body.StreamOptions.IncludeUsage, Header: r.Header.Clone()}
	for _, m := range body.Messages {
		text, images, err := openaiContent(m.Content)
		if err == nil && len(images) > 0 && m.Role != "user" {
			err = fmt.Errorf("image content is only allowed in user messages, not %s messages", m.Role)
		}
		if err != nil {
			openaiError(w, 400, "invalid_request_error", "invalid_content", err.Error())
			return
		}
		msg := Message{Role: m.Role, Content: text, ToolCallID: m.ToolCallID, ToolName: m.Name, Images: images}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
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
		// Retry-After-Ms keeps the client's own retry of 5xx answers quick.
		w.Header().Set("Retry-After-Ms", "1")
		openaiError(w, resp.Status, "server_error", "", resp.Error)
		return
	case !s.hasModel(body.Model):
		openaiError(w, 404, "invalid_request_error", "model_not_found", fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", body.Model))
		return
	}
	n := s.Calls()
	pt, ct := estimate(req.Messages, resp.Text, resp.ToolCalls)
	if resp.PromptTokens != 0 {
		pt = resp.PromptTokens
	}
	if resp.CompletionTokens != 0 {
		ct = resp.CompletionTokens
	}
	usage := map[string]any{"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}
	id := fmt.Sprintf("chatcmpl-%d", n)
	finish := "stop"
	if len(resp.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	callID := func(i int, tc ToolCall) string {
		if tc.ID != "" {
			return tc.ID
		}
		return fmt.Sprintf("call_%d_%d", n, i)
	}
	if !body.Stream {
		msg := map[string]any{"role": "assistant", "content": resp.Text, "refusal": nil}
		var calls []any
		for i, tc := range resp.ToolCalls {
			calls = append(calls, map[string]any{"id": callID(i, tc), "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
		}
		if calls != nil {
			msg["tool_calls"] = calls
		}
		writeJSON(w, 200, map[string]any{"id": id, "object": "chat.completion", "created": 1767225600, "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	flusher, _ := w.(http.Flusher)
	event := func(data string) bool {
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	chunk := func(delta map[string]any, reason any) bool {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1767225600, "model": body.Model,
			"system_fingerprint": "fp_modeltest",
			"choices":            []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": reason}}})
		return event(string(b))
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if resp.Malformed {
		event(`{"id": "` + id + `", "choices": [{"index": 0, "delta": {"content": "bro`)
		return
	}
	for _, p := range split(resp.Text, 8) {
		chunk(map[string]any{"content": p}, nil)
	}
	switch {
	case resp.Flood > 0 && resp.FloodOneLine:
		_, _ = fmt.Fprint(w, "data: ")
		s.flood(r, resp.Flood, func(p string) bool {
			_, err := fmt.Fprint(w, p)
			return err == nil
		})
	case resp.Flood > 0 && resp.FloodOneEvent:
		s.flood(r, resp.Flood, func(p string) bool {
			_, err := fmt.Fprintf(w, "data: %s\n", p)
			return err == nil
		})
	case resp.Flood > 0:
		s.flood(r, resp.Flood, func(p string) bool { return chunk(map[string]any{"content": p}, nil) })
	}
	for i, tc := range resp.ToolCalls {
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": callID(i, tc), "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""}}}}, nil)
		// Small fragments as real servers send them; large arguments in
		// about 64 pieces so a test of a huge call stays quick.
		for _, frag := range split(tc.Arguments, max(5, len(tc.Arguments)/64)) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": frag}}}}, nil)
		}
	}
	if resp.Truncated {
		return
	}
	chunk(map[string]any{}, finish)
	if body.StreamOptions.IncludeUsage {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1767225600, "model": body.Model,
			"choices": []any{}, "usage": usage})
		event(string(b))
	}
	event("[DONE]")
}
