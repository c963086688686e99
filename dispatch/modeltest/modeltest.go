// Package modeltest provides protocol-faithful stand-ins for the model
// servers tend talks to: the Ollama chat API (NDJSON streaming) and the
// OpenAI chat-completions API (server-sent events with tool-call deltas).
// Each runs on loopback inside the test; a Script decides each answer, and
// every chat request is recorded for assertions.
package modeltest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// ToolCall is a call the stand-in model makes, or one it received back in
// the conversation. Arguments is a JSON object as text.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Message is one chat message as the server received it.
type Message struct {
	Role       string
	Content    string
	ToolCalls  []ToolCall
	ToolCallID string
	ToolName   string
	// Images are the pictures the message carried, decoded: Ollama's
	// "images", or OpenAI image_url parts with data URLs.
	Images [][]byte
}

// Request is one chat request as the server received it.
type Request struct {
	Model    string
	Messages []Message
	Tools    []string // names of the tools offered
	// ToolParams maps each offered tool to its JSON-schema parameters.
	ToolParams   map[string]json.RawMessage
	Stream       bool
	IncludeUsage bool // OpenAI stream_options.include_usage
	// Header is the request's HTTP header.
	Header http.Header
}

// Last returns the last message of the request (zero if none).
func (r Request) Last() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// FirstUser returns the content of the first user message (the prompt).
func (r Request) FirstUser() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// Response says how the stand-in answers one chat request.
type Response struct {
	Text      string
	ToolCalls []ToolCall
	// Status, when not 0 or 200, answers with that HTTP status and Error as
	// the message in the API's own error shape.
	Status int
	Error  string
	// Malformed sends a stream line that is not valid JSON after the first
	// chunk. Truncated ends the stream without its final chunk.
	Malformed bool
	Truncated bool
	// Hang sends nothing and waits until the client gives up (or the
	// server closes), to test timeouts and cancellation.
	Hang bool
	// Wait, when set, holds the answer back until the channel is closed;
	// a client that gives up first gets nothing, as with Hang. Tests use
	// it to act while a request is in flight.
	Wait <-chan struct{}
	// Flood, when > 0, streams that many bytes of answer text (in large
	// chunks) before the usual end, as a hostile or broken server would;
	// it stops early when the client goes away. Server.Sent counts what
	// was written. FloodOneEvent (OpenAI only) sends the flood as "data:"
	// lines of one server-sent event that never ends; FloodOneLine (OpenAI
	// only) sends it as one "data:" line that never ends.
	Flood         int64
	FloodOneEvent bool
	FloodOneLine  bool
	// Token counts reported at the end; 0 means a rough estimate.
	PromptTokens     int
	CompletionTokens int
}

// Script decides the answer to each chat request.
type Script func(Request) Response

// Text is a plain text answer.
func Text(s string) Response { return Response{Text: s} }

// Calls is an answer made only of tool calls.
func Calls(calls ...ToolCall) Response { return Response{ToolCalls: calls} }

// Call builds a tool call; args is a JSON object as text ("" means {}).
func Call(name, args string) ToolCall {
	if args == "" {
		args = "{}"
	}
	return ToolCall{Name: name, Arguments: args}
}

// Error answers with an HTTP status.
func Error(status int, msg string) Response { return Response{Status: status, Error: msg} }

// Sequence answers the n-th request with the n-th response, and repeats the
// last one after that.
func Sequence(rs ...Response) Script {
	var mu sync.Mutex
	n := 0
	return func(Request) Response {
		mu.Lock()
		defer mu.Unlock()
		if len(rs) == 0 {
			return Text("done")
		}
		r := rs[min(n, len(rs)-1)]
		n++
		return r
	}
}

// Model is a model the stand-in lists. Capabilities follow Ollama's
// /api/show ("completion", "tools", ...); nil leaves them out, as older
// servers do.
type Model struct {
	Name         string
	Capabilities []string
}

type config struct {
	models []Model
	key    string
}

// Option configures a stand-in.
type Option func(*config)

// WithModels sets the models the server has (default: one tool-capable
// model, "qwen3:8b" for Ollama and "gpt-test" for OpenAI). A chat request
// for a model not in the list gets a 404, as the real servers answer.
func WithModels(models ...Model) Option { return func(c *config) { c.models = models } }

// WithKey sets the bearer key the OpenAI stand-in requires (default
// "sk-test"); "" accepts any request.
func WithKey(key string) Option { return func(c *config) { c.key = key } }

// Server is a running stand-in.
type Server struct {
	URL string // base URL: http://127.0.0.1:port (OpenAI: add /v1)

	srv    *httptest.Server
	cfg    config
	script Script
	done   chan struct{}

	mu       sync.Mutex
	requests []Request
	sent     int64
}

func newServer(t testing.TB, script Script, cfg config, mux func(*Server) http.Handler) *Server {
	t.Helper()
	if script == nil {
		script = Sequence()
	}
	s := &Server{cfg: cfg, script: script, done: make(chan struct{})}
	s.srv = httptest.NewServer(mux(s))
	s.URL = s.srv.URL
	t.Cleanup(s.Close)
	return s
}

// Close stops the server; hanging answers end.
func (s *Server) Close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns every chat request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Calls returns how many chat requests were received.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Sent returns how many bytes of flood text the server managed to write
// (see Response.Flood).
func (s *Server) Sent() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent
}

// flood writes n bytes of text through send, in pieces of floodChunk,
// until done or the client is gone (send reports false).
func (s *Server) flood(r *http.Request, n int64, send func(piece string) bool) {
	piece := strings.Repeat("flood ", floodChunk/6)
	for n > 0 {
		if r.Context().Err() != nil {
			return
		}
		p := piece
		if int64(len(p)) > n {
			p = p[:n]
		}
		if !send(p) {
			return
		}
		s.mu.Lock()
		s.sent += int64(len(p))
		s.mu.Unlock()
		n -= int64(len(p))
	}
}

const floodChunk = 4096

func (s *Server) record(r Request) Response {
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.mu.Unlock()
	return s.script(r)
}

func (s *Server) hasModel(name string) bool {
	if len(s.cfg.models) == 0 {
		return true
	}
	for _, m := range s.cfg.models {
		if m.Name == name || strings.TrimSuffix(m.Name, ":latest") == name {
			return true
		}
	}
	return false
}

// hang waits until the client goes away or the server closes.
func (s *Server) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// wait holds an answer until resp.Wait is closed; false means the client
// went away (or the server closed) first and nothing is to be sent.
func (s *Server) wait(r *http.Request, resp Response) bool {
	if resp.Wait == nil {
		return true
	}
	select {
	case <-resp.Wait:
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// split cuts s into pieces of about n bytes, never inside a UTF-8 sequence.
func split(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i < len(s) && (s[i]&0xC0) == 0x80 {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func estimate(msgs []Message, text string, calls []ToolCall) (int, int) {
	p := 0
	for _, m := range msgs {
		p += len(m.Content)/4 + 4
	}
	c := len(text) / 4
	for _, tc := range calls {
		c += (len(tc.Name)+len(tc.Arguments))/4 + 2
	}
	return p, c + 1
}
