package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// DefaultOpenAIBaseURL is used when a watcher names no base URL.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

type openaiProvider struct {
	client  openai.Client
	base    string
	model   string
	keyName string
	key     string // only to redact it from errors; never logged
	now     func() time.Time
}

func newOpenAI(ctx context.Context, cfg ProviderConfig, keys KeyStore, log *slog.Logger) (*openaiProvider, error) {
	p := &openaiProvider{base: strings.TrimSuffix(cfg.BaseURL, "/"), model: cfg.Model, keyName: cfg.KeyName, now: time.Now}
	if p.keyName == "" {
		p.keyName = "openai"
	}
	if p.base == "" {
		p.base = DefaultOpenAIBaseURL
	}
	opts := []option.RequestOption{option.WithBaseURL(p.base), option.WithMaxRetries(1), option.WithMiddleware(limitEvents)}
	if keys != nil {
		key, err := keys.Get(p.keyName)
		switch {
		case err == nil:
			p.key = key
			opts = append(opts, option.WithAPIKey(key))
		case errors.Is(err, ErrKeyNotFound):
			log.Info("no API key stored; sending none (set one with `tend key set "+p.keyName+"` if the server needs it)", "key", p.keyName)
		default:
			return nil, fmt.Errorf("reading API key %s: %w", p.keyName, err)
		}
	}
	p.client = openai.NewClient(opts...)
	if p.model == "" {
		page, err := p.client.Models.List(ctx)
		if err != nil {
			return nil, p.wrap(ctx, err)
		}
		if len(page.Data) == 0 {
			return nil, &ProviderError{Kind: FailNoModel, Provider: KindOpenAI,
				Msg: fmt.Sprintf("the server at %s lists no models: choose one with --model", p.base)}
		}
		p.model = page.Data[0].ID
		log.Info(fmt.Sprintf("no model set; using %s, the first model the server lists", p.model), "server", p.base)
	}
	return p, nil
}

func (p *openaiProvider) Name() string  { return KindOpenAI }
func (p *openaiProvider) Model() string { return p.model }

func (p *openaiProvider) Chat(ctx context.Context, msgs []Message, tools []ToolSpec) (Reply, error) {
	params := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(p.model),
		Messages:      toOpenAIMessages(msgs),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	for _, t := range tools {
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(t.Parameters)}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	start := p.now()
	stream := p.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()

	var (
		reply    Reply
		content  strings.Builder
		calls    = map[int64]*partialCall{}
		finished bool
		chunks   int
		budget   = answerBudget{provider: KindOpenAI}
	)
	for stream.Next() {
		ch := stream.Current()
		if chunks == 0 {
			reply.FirstByte = max(p.now().Sub(start), 1)
		}
		chunks++
		if ch.Usage.PromptTokens > 0 || ch.Usage.CompletionTokens > 0 {
			reply.PromptTokens = int(ch.Usage.PromptTokens)
			reply.CompletionTokens = int(ch.Usage.CompletionTokens)
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
			for _, d := range c.Delta.ToolCalls {
				pc := calls[d.Index]
				if pc == nil {
					pc = &partialCall{}
					calls[d.Index] = pc
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
	if err := stream.Err(); err != nil {
		return Reply{}, p.wrap(ctx, err)
	}
	if chunks == 0 || !finished {
		return Reply{}, &ProviderError{Kind: FailMalformed, Provider: KindOpenAI,
			Msg: fmt.Sprintf("the server at %s ended the stream before the answer was complete", p.base)}
	}
	reply.Message = Message{Role: RoleAssistant, Content: content.String(), ToolCalls: assembleCalls(calls)}
	return reply, nil
}

// limitEvents bounds each event of a streamed answer (see maxStreamEvent).
func limitEvents(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err == nil && res.Body != nil && strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		res.Body = &eventLimiter{rc: res.Body, max: maxStreamEvent}
	}
	return res, err
}

type partialCall struct {
	id, name string
	args     strings.Builder
}

func assembleCalls(calls map[int64]*partialCall) []ToolCall {
	idx := make([]int64, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
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

func (p *openaiProvider) wrap(ctx context.Context, err error) error {
	if errors.Is(err, errAnswerTooLong) {
		return tooLong(KindOpenAI, "one stream event", maxStreamEvent)
	}
	err = redact(err, p.key)
	pe := &ProviderError{Provider: KindOpenAI, Err: err}
	var ae *openai.Error
	switch {
	case isCanceled(ctx, err):
		pe.Kind, pe.Msg = FailCanceled, "the model call was stopped"
	case errors.As(err, &ae):
		pe.Err = fmt.Errorf("status %d: %s", ae.StatusCode, truncate(redact(errors.New(ae.Message), p.key).Error(), 200))
		switch {
		case ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden:
			// The server's text may quote part of the key: leave it out.
			pe.Err = fmt.Errorf("status %d", ae.StatusCode)
			pe.Kind = FailAuth
			pe.Msg = fmt.Sprintf("the server at %s refused the API key: set it with `tend key set %s`", p.base, p.keyName)
		case ae.StatusCode == http.StatusNotFound && (ae.Code == "model_not_found" || strings.Contains(strings.ToLower(ae.Message), "model")):
			pe.Kind = FailModelNotFound
			pe.Msg = fmt.Sprintf("model %s not found on the server at %s: choose another with --model", p.model, p.base)
		case ae.StatusCode == http.StatusNotFound:
			pe.Kind = FailServer
			pe.Msg = fmt.Sprintf("the server at %s answered 404: is the base URL right? it usually ends in /v1", p.base)
		default:
			pe.Kind = FailServer
			pe.Msg = fmt.Sprintf("the server at %s failed with status %d", p.base, ae.StatusCode)
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

func toOpenAIMessages(msgs []Message) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case RoleSystem:
			out = append(out, openai.SystemMessage(m.Content))
		case RoleTool:
			out = append(out, openai.ToolMessage(m.Content, m.ToolCallID))
		case RoleAssistant:
			var a openai.ChatCompletionAssistantMessageParam
			if m.Content != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				args := string(tc.Arguments)
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args}}})
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		default:
			out = append(out, openai.UserMessage(m.Content))
		}
	}
	return out
}
