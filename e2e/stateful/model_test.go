package stateful

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tend-agent/tend/dispatch/modeltest"
)

// mode is how the stand-in model answers the first turn of each pass.
type mode string

const (
	modeQuiet     mode = "quiet"     // succeeds, changes nothing
	modeAct       mode = "act"       // succeeds, moves every added file into Sorted/
	modeFail500   mode = "http500"   // the server answers 500
	modeRefused   mode = "refused"   // nothing listens: connection refused
	modeMalformed mode = "malformed" // the stream breaks with a line that is not JSON
	modeHang      mode = "hang"      // no answer until the client gives up
	modeGate      mode = "gate"      // like quiet, but held until the test releases it
)

var allModes = []mode{modeQuiet, modeAct, modeFail500, modeRefused, modeMalformed, modeHang, modeGate}

// pass is one pass as the stand-in saw it: when its first turn arrived and
// which changed paths it was shown, in the prompt or through the paged
// changes tool the overflow line names.
type pass struct {
	n        int
	arrived  time.Time
	listed   []string // prompt's list, removed ones included
	overflow int      // the number on the overflow line, 0 without one
	tool     string   // the tool the overflow line names, "" if none offered
	paged    []string // paths the changes tool returned
	calls    int      // changes-tool calls made
}

// shown returns every path the pass was shown.
func (p *pass) shown() []string { return append(append([]string(nil), p.listed...), p.paged...) }

// model is the scripted stand-in behind a proxy that can refuse
// connections; the stand-in itself is dispatch/modeltest's Ollama server.
type model struct {
	srv   *modeltest.Server
	proxy *proxy

	mu     sync.Mutex
	mode   mode
	gate   chan struct{}
	passes []*pass
}

func newModel(t testing.TB) *model {
	m := &model{mode: modeQuiet, gate: make(chan struct{})}
	m.srv = modeltest.NewOllama(t, m.answer)
	m.proxy = newProxy(t, m.srv.URL)
	t.Cleanup(m.release) // a held answer must not keep the server from closing
	return m
}

// URL is the base URL watchers use.
func (m *model) URL() string { return m.proxy.url }

func (m *model) setMode(md mode) {
	m.mu.Lock()
	m.mode = md
	m.mu.Unlock()
	m.proxy.setRefusing(md == modeRefused)
}

// release lets every held (gated) answer go.
func (m *model) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	close(m.gate)
	m.gate = make(chan struct{})
}

func (m *model) snapshot() []pass {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]pass, len(m.passes))
	for i, p := range m.passes {
		out[i] = *p
		out[i].listed = append([]string(nil), p.listed...)
		out[i].paged = append([]string(nil), p.paged...)
	}
	return out
}

var (
	listedRE   = regexp.MustCompile("(?m)^- `([^`]+)`( \\(removed\\))?$")
	overflowRE = regexp.MustCompile(`(?m)^\D*?(\d+) more changed file.*$`)
	spanRE     = regexp.MustCompile("`([^`]+)`")
	markerRE   = regexp.MustCompile(`pass #(\d+)`)
)

// answer is the modeltest script.
func (m *model) answer(r modeltest.Request) modeltest.Response {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.Last().Role == "user" {
		return m.firstTurn(r)
	}
	// A later turn of a pass: find the pass by the marker of its first answer.
	var p *pass
	for _, msg := range r.Messages {
		if msg.Role != "assistant" {
			continue
		}
		if mm := markerRE.FindStringSubmatch(msg.Content); mm != nil {
			n, _ := strconv.Atoi(mm[1])
			if n >= 1 && n <= len(m.passes) {
				p = m.passes[n-1]
			}
		}
	}
	if p == nil {
		return modeltest.Text("I lost track of this pass.")
	}
	// Tool results of this turn: the ones after the last assistant message.
	last := 0
	for i, msg := range r.Messages {
		if msg.Role == "assistant" {
			last = i
		}
	}
	grew := false
	for _, msg := range r.Messages[last+1:] {
		if msg.Role != "tool" || p.tool == "" || !isToolResultOf(r.Messages[last], msg, p.tool) {
			continue
		}
		before := len(p.paged)
		p.paged = mergePaths(p.paged, pathsIn(msg.Content))
		grew = grew || len(p.paged) > before
	}
	if p.tool != "" && grew && p.calls < 50 {
		return m.pageCall(p, r)
	}
	return modeltest.Text(fmt.Sprintf("pass #%d: done.", p.n))
}

// isToolResultOf reports whether a tool message answers a call of the
// named tool in the assistant message before it.
func isToolResultOf(asst, res modeltest.Message, tool string) bool {
	if res.ToolName != "" {
		return res.ToolName == tool
	}
	for _, c := range asst.ToolCalls {
		if c.Name == tool && (res.ToolCallID == "" || res.ToolCallID == c.ID) {
			return true
		}
	}
	return false
}

func (m *model) firstTurn(r modeltest.Request) modeltest.Response {
	p := &pass{n: len(m.passes) + 1, arrived: time.Now()}
	m.passes = append(m.passes, p)
	prompt := r.FirstUser()
	for _, mm := range listedRE.FindAllStringSubmatch(prompt, -1) {
		p.listed = append(p.listed, mm[1])
	}
	if mm := overflowRE.FindStringSubmatch(prompt); mm != nil {
		p.overflow, _ = strconv.Atoi(mm[1])
		// The overflow line names the tool that pages through the rest.
		words := strings.FieldsFunc(mm[0], func(c rune) bool {
			return !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
		})
		for _, word := range words {
			if _, ok := r.ToolParams[word]; ok {
				p.tool = word
			}
		}
	}
	switch m.mode {
	case modeFail500:
		return modeltest.Error(500, "model runner crashed")
	case modeMalformed:
		return modeltest.Response{Text: fmt.Sprintf("pass #%d: working on it", p.n), Malformed: true}
	case modeHang:
		return modeltest.Response{Hang: true}
	case modeRefused:
		// The proxy refuses before a request gets here; one that was on
		// its way fails like a dropped connection.
		return modeltest.Response{Text: "partial", Truncated: true}
	}
	var resp modeltest.Response
	if p.tool != "" {
		resp = m.pageCall(p, r)
	} else {
		resp = modeltest.Text(fmt.Sprintf("pass #%d: all in order.", p.n))
	}
	if m.mode == modeAct {
		for _, path := range listedRE.FindAllStringSubmatch(prompt, -1) {
			if path[2] != "" || strings.HasPrefix(path[1], "Sorted/") || isDir(path[1]) {
				continue
			}
			args, _ := json.Marshal(map[string]string{"from": path[1], "to": "Sorted/" + strings.ReplaceAll(path[1], "/", "_")})
			resp.ToolCalls = append(resp.ToolCalls, modeltest.Call("file_move", string(args)))
		}
		if len(resp.ToolCalls) > 0 {
			resp.Text = fmt.Sprintf("pass #%d: sorting.", p.n)
		}
	}
	if m.mode == modeGate {
		resp.Wait = m.gate
	}
	return resp
}

// pageCall asks the changes tool for the next page. The arguments follow
// the tool's schema: an integer "offset"-like parameter gets the number
// of paths seen so far (the prompt's included), a "page"-like one the
// page number, a "limit"-like one 100.
func (m *model) pageCall(p *pass, r modeltest.Request) modeltest.Response {
	p.calls++
	var schema struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(r.ToolParams[p.tool], &schema)
	args := map[string]any{}
	for name, prop := range schema.Properties {
		if prop.Type != "integer" && prop.Type != "number" {
			continue
		}
		switch n := strings.ToLower(name); {
		case strings.Contains(n, "offset") || strings.Contains(n, "start") || strings.Contains(n, "skip"):
			args[name] = len(p.listed) + len(p.paged)
		case strings.Contains(n, "page"):
			args[name] = p.calls
		case strings.Contains(n, "limit") || strings.Contains(n, "count") || strings.Contains(n, "max"):
			args[name] = 100
		}
	}
	b, _ := json.Marshal(args)
	return modeltest.Response{Text: fmt.Sprintf("pass #%d: reading the rest of the changes.", p.n),
		ToolCalls: []modeltest.ToolCall{modeltest.Call(p.tool, string(b))}}
}

// pathsIn reads the paths out of a changes-tool result: code spans as in
// the prompt, JSON ("path" fields or arrays of strings), else one per line.
func pathsIn(s string) []string {
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		var out []string
		walkJSON(v, "", &out)
		return out
	}
	if spans := spanRE.FindAllStringSubmatch(s, -1); len(spans) > 0 {
		out := make([]string, 0, len(spans))
		for _, sp := range spans {
			out = append(out, sp[1])
		}
		return out
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "- "), " (removed)")
		if line != "" && !strings.Contains(line, " ") {
			out = append(out, line)
		}
	}
	return out
}

func walkJSON(v any, key string, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			walkJSON(e, k, out)
		}
	case []any:
		for _, e := range x {
			walkJSON(e, key, out)
		}
	case string:
		if k := strings.ToLower(key); k == "path" || k == "paths" || k == "changes" || k == "changed" || k == "items" {
			*out = append(*out, x)
		}
	}
}

func mergePaths(have, add []string) []string {
	seen := map[string]bool{}
	for _, p := range have {
		seen[p] = true
	}
	for _, p := range add {
		if !seen[p] {
			seen[p] = true
			have = append(have, p)
		}
	}
	sort.Strings(have)
	return have
}

// proxy forwards to the stand-in and can refuse connections: it closes its
// listener (and idle connections) and later listens on the same port again.
type proxy struct {
	url      string
	addr     string
	srv      *http.Server
	inflight atomic.Int32

	mu  sync.Mutex
	ln  net.Listener
	err error
}

func newProxy(t testing.TB, target string) *proxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1                    // pass the stream on as it comes
	rp.ErrorLog = log.New(io.Discard, "", 0) // cancelled requests are expected
	p := &proxy{}
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.inflight.Add(1)
		defer p.inflight.Add(-1)
		rp.ServeHTTP(w, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.ln, p.addr = ln, ln.Addr().String()
	p.url = "http://" + p.addr
	go p.srv.Serve(ln)
	t.Cleanup(func() { p.srv.Close() })
	return p
}

func (p *proxy) setRefusing(refuse bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case refuse && p.ln != nil:
		p.ln.Close()
		p.ln = nil
		p.srv.SetKeepAlivesEnabled(false) // closes the idle connections too
	case !refuse && p.ln == nil:
		ln, err := net.Listen("tcp", p.addr)
		if err != nil {
			p.err = fmt.Errorf("listening again on %s: %w", p.addr, err)
			return
		}
		p.ln = ln
		p.srv.SetKeepAlivesEnabled(true)
		go p.srv.Serve(ln)
	}
}

// problem reports a failure to listen again (the port was taken).
func (p *proxy) problem() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}
