package dispatch

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// DefaultOpenAIBaseURL is used when a watcher names no base URL.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// The client is github.com/sashabaranov/go-openai: a small hand-written
// client of the two endpoints tend uses (streamed chat completions and the
// model list), where the generated SDK added about 50 MB to the binary.
type openaiProvider struct {
	client  *openai.Client
	base    string
	model   string
	keyName string
	key     string // only to redact it from errors; never logged
	vision  bool
	now     func() time.Time
}

// userAgent names tend to the server (proxies and server logs show it).
const userAgent = "tend"

// headerDoer adds tend's headers to every request.
type headerDoer struct {
	client  *http.Client
	headers http.Header
}

func (d headerDoer) Do(req *http.Request) (*http.Response, error) {
	for k, v := range d.headers {
		req.Header[k] = v
	}
	res, err := d.client.Do(req)
	// Each event of a streamed answer is bounded (see maxStreamEvent): the
	// client reads a whole line into memory.
	if err == nil && res.Body != nil && strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		res.Body = &eventLimiter{rc: res.Body, max: maxStreamEvent}
	}
	return res, err
}

func newOpenAI(ctx context.Context, cfg ProviderConfig, keys KeyStore, log *slog.Logger) (*openaiProvider, error) {
	p := &openaiProvider{base: strings.TrimSuffix(cfg.BaseURL, "/"), model: cfg.Model, keyName: cfg.KeyName,
		vision: cfg.Vision, now: time.Now}
	if p.keyName == "" {
		p.keyName = "openai"
	}
	if p.base == "" {
		p.base = DefaultOpenAIBaseURL
	}
	if keys != nil {
		key, err := keys.Get(p.keyName)
		switch {
		case err == nil:
			p.key = key
		case errors.Is(err, ErrKeyNotFound):
			log.Info("no API key stored; sending none (set one with `tend key set "+p.keyName+"` if the server needs it)", "key", p.keyName)
		default:
			return nil, fmt.Errorf("reading API key %s: %w", p.keyName, err)
		}
	}
	conf := openai.DefaultConfig(p.key) // an empty key sends no Authorization header
	conf.BaseURL = p.base
	conf.HTTPClient = headerDoer{client: &http.Client{}, headers: http.Header{"User-Agent": {userAgent}}}
	p.client = openai.NewClientWithConfig(conf)
	if p.model == "" {
		list, err := p.client.ListModels(ctx)
		if err != nil {
			return nil, p.wrap(ctx, err)
		}
		if len(list.Models) == 0 {
			return nil, &ProviderError{Kind: FailNoModel, Provider: KindOpenAI,
				Msg: fmt.Sprintf("the server at %s lists no models: choose one with --model", p.base)}
		}
		p.model = list.Models[0].ID
		log.Info(fmt.Sprintf("no model set; using %s, the first model the server lists", p.model), "server", p.base)
	}
	return p, nil
}

func (p *openaiProvider) Name() string  { return KindOpenAI }
func (p *openaiProvider) Model() string { return p.model }
func (p *openaiProvider) Vision() bool  { return p.vision }

func (p *openaiProvider) Chat(ctx context.Context, msgs []Message, tools []ToolSpec) (Reply, error) {
	req := openai.ChatCompletionRequest{
		Model:         p.model,
		Messages:      toOpenAIMessages(msgs),
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	for _, t := range tools {
		params := t.Parameters
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		req.Tools = append(req.Tools, openai.Tool{Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	start := p.now()
	stream, err := p.client.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return Reply{}, p.wrap(ctx, err)
	}
	defer stream.Close()

	var (
		reply    Reply
		content  strings.Builder
		calls    = map[int]*partialCall{}
		finished bool
		chunks   int
		budget   = answerBudget{provider: KindOpenAI}
	)
	for {
		ch, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Reply{}, p.wrap(ctx, err)
		}
		if chunks == 0 {
			reply.FirstByte = max(p.now().Sub(start), 1)
		}
		chunks++
		if u := ch.Usage; u != nil && (u.PromptTokens > 0 || u.CompletionTokens > 0) {
			reply.PromptTokens = u.PromptTokens
			reply.CompletionTokens = u.CompletionTokens
		}
		for _, c := range ch.Choices {
			if c.Index != 0 {
				continue
			}
			args := 0
			for _, d := range c.Delta.ToolCalls {
				args += len(d.Function.Arguments)
			}
			if err := budget.add(len(c.Delta.Content), args); err != nil {
				return Reply{}, err // the deferred Close stops the stream
			}
			content.WriteString(c.Delta.Content)
			for n, d := range c.Delta.ToolCalls {
				i := n // a server that leaves out the index sends one call per chunk position
				if d.Index != nil {
					i = *d.Index
				}
				pc := calls[i]
				if pc == nil {
					pc = &partialCall{}
					calls[i] = pc
				}
				if d.ID != "" {
					pc.id = d.ID
				}
				pc.name += d.Function.Name
				pc.args.WriteString(d.Function.Arguments)
			}
			if c.FinishReason != "" {
				finished = true
			}
		}
	}
	if ctx.Err() != nil {
		return Reply{}, p.wrap(ctx, ctx.Err())
	}
	if chunks == 0 || !finished {
		return Reply{}, &ProviderError{Kind: FailMalformed, Provider: KindOpenAI,
			Msg: fmt.Sprintf("the server at %s ended the stream before the answer was complete", p.base)}
	}
	reply.Message = Message{Role: RoleAssistant, Content: content.String(), ToolCalls: assembleCalls(calls)}
	return reply, nil
}

type partialCall struct {
	id, name string
	args     strings.Builder
}

func assembleCalls(calls map[int]*partialCall) []ToolCall {
	idx := make([]int, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var out []ToolCall
	for n, i := range idx {
		pc := calls[i]
		id := pc.id
		if id == "" {
			id = fmt.Sprintf("call_%d", n+1)
		}
		args := strings.TrimSpace(pc.args.String())
		if args == "" {
			args = "{}"
		}
		out = append(out, ToolCall{ID: id, Name: pc.name, Arguments: json.RawMessage(args)})
	}
	return out
}

// apiStatus reads the HTTP status, the error code and the server's message
// from the client's two error types (a JSON error body, or any other body).
func apiStatus(err error) (status int, code, msg string, ok bool) {
	var ae *openai.APIError
	var re *openai.RequestError
	switch {
	case errors.As(err, &ae) && ae.HTTPStatusCode > 0:
		code, _ = ae.Code.(string)
		return ae.HTTPStatusCode, code, ae.Message, true
	case errors.As(err, &re) && re.HTTPStatusCode > 0:
		return re.HTTPStatusCode, "", strings.TrimSpace(string(re.Body)), true
	}
	return 0, "", "", false
}

func (p *openaiProvider) wrap(ctx context.Context, err error) error {
	if errors.Is(err, errAnswerTooLong) {
		return tooLong(KindOpenAI, "one stream event", maxStreamEvent)
	}
	err = redact(err, p.key)
	pe := &ProviderError{Provider: KindOpenAI, Err: err}
	status, code, msg, isStatus := apiStatus(err)
	switch {
	case isCanceled(ctx, err):
		pe.Kind, pe.Msg = FailCanceled, "the model call was stopped"
	case isStatus:
		pe.Err = fmt.Errorf("status %d: %s", status, truncate(redact(errors.New(msg), p.key).Error(), 200))
		switch {
		case status == http.StatusUnauthorized || status == http.StatusForbidden:
			// The server's text may quote part of the key: leave it out.
			pe.Err = fmt.Errorf("status %d", status)
			pe.Kind = FailAuth
			pe.Msg = fmt.Sprintf("the server at %s refused the API key: set it with `tend key set %s`", p.base, p.keyName)
		case status == http.StatusNotFound && (code == "model_not_found" || strings.Contains(strings.ToLower(msg), "model")):
			pe.Kind = FailModelNotFound
			pe.Msg = fmt.Sprintf("model %s not found on the server at %s: choose another with --model", p.model, p.base)
		case status == http.StatusNotFound:
			pe.Kind = FailServer
			pe.Msg = fmt.Sprintf("the server at %s answered 404: is the base URL right? it usually ends in /v1", p.base)
		default:
			pe.Kind = FailServer
			pe.Msg = fmt.Sprintf("the server at %s failed with status %d", p.base, status)
		}
	case isUnreachable(err):
		pe.Kind = FailUnreachable
		pe.Msg = fmt.Sprintf("cannot reach the server at %s: is it running, and is the base URL right?", p.base)
	default:
		pe.Kind = FailMalformed
		pe.Msg = fmt.Sprintf("the server at %s sent a stream that could not be read", p.base)
		pe.Err = errors.New(truncate(err.Error(), 200))
	}
	return pe
}

func toOpenAIMessages(msgs []Message) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, 0, len(msgs))
	var pictures []Message // tool results with pictures, sent after the run of tool messages
	flush := func() {
		if len(pictures) > 0 {
			out = append(out, picturesMessage(pictures))
			pictures = nil
		}
	}
	for _, m := range msgs {
		if m.Role != RoleTool {
			flush()
		}
		switch m.Role {
		case RoleSystem:
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: m.Content})
		case RoleTool:
			text := m.Content
			if text == "" {
				text = "(no output)" // servers refuse a tool message without content
			}
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, Content: text, ToolCallID: m.ToolCallID})
			if hasPictureData(m.Images) {
				pictures = append(pictures, m)
			}
		case RoleAssistant:
			a := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: m.Content}
			for _, tc := range m.ToolCalls {
				args := string(tc.Arguments)
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction,
					Function: openai.FunctionCall{Name: tc.Name, Arguments: args}})
			}
			out = append(out, a)
		default:
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: m.Content})
		}
	}
	flush()
	return out
}

func hasPictureData(imgs []Image) bool {
	for _, im := range imgs {
		if len(im.Data) > 0 {
			return true
		}
	}
	return false
}

// picturesMessage carries the pictures of tool results as image_url
// data-URL parts of a user message: the chat-completions API takes pictures
// only in user messages, never in tool results, and it wants every tool
// result right after the call that asked for it, so the pictures follow the
// run of tool messages.
func picturesMessage(results []Message) openai.ChatCompletionMessage {
	var parts []openai.ChatMessagePart
	for _, m := range results {
		for _, im := range m.Images {
			if len(im.Data) == 0 {
				continue
			}
			parts = append(parts,
				openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText,
					Text: fmt.Sprintf("The picture %s (%d×%d), as returned by %s (call %s):", im.Path, im.Width, im.Height, m.ToolName, m.ToolCallID)},
				openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
					ImageURL: &openai.ChatMessageImageURL{URL: "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)}})
		}
	}
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: parts}
}
