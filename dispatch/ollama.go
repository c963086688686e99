package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// DefaultOllamaHost is where Ollama listens unless OLLAMA_HOST says otherwise.
const DefaultOllamaHost = "http://127.0.0.1:11434"

type ollamaProvider struct {
	client *api.Client
	base   string
	model  string
	vision bool // the server reports the "vision" capability for the model
	now    func() time.Time
}

// ollamaBaseURL resolves the server: the configured URL, else OLLAMA_HOST,
// else the default. A bare host[:port] gets http:// and the default port.
func ollamaBaseURL(configured string) (*url.URL, error) {
	raw := strings.TrimSpace(configured)
	if raw == "" {
		raw = strings.TrimSpace(os.Getenv("OLLAMA_HOST"))
	}
	if raw == "" {
		raw = DefaultOllamaHost
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("the Ollama address %q is not a URL like http://127.0.0.1:11434", raw)
	}
	if u.Port() == "" && u.Scheme == "http" {
		u.Host += ":11434"
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

func newOllama(ctx context.Context, cfg ProviderConfig, log *slog.Logger) (*ollamaProvider, error) {
	base, err := ollamaBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, &ProviderError{Kind: FailUnreachable, Provider: KindOllama, Msg: err.Error()}
	}
	p := &ollamaProvider{
		client: api.NewClient(base, &http.Client{}),
		base:   base.String(),
		model:  cfg.Model,
		now:    time.Now,
	}
	if p.model == "" {
		m, err := p.pickModel(ctx, log)
		if err != nil {
			return nil, err
		}
		p.model = m
	}
	p.vision = p.canSee(ctx, log)
	return p, nil
}

func (p *ollamaProvider) Name() string  { return KindOllama }
func (p *ollamaProvider) Model() string { return p.model }
func (p *ollamaProvider) Vision() bool  { return p.vision }

// canSee asks the server whether the model takes pictures. A server that
// cannot say (too old, or not answering now: the chat call will report
// that) means no: the model then gets descriptions of pictures.
func (p *ollamaProvider) canSee(ctx context.Context, log *slog.Logger) bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	show, err := p.client.Show(ctx, &api.ShowRequest{Model: p.model})
	if err != nil {
		log.Debug("could not ask the server whether the model can see pictures; assuming it cannot", "model", p.model, "err", err)
		return false
	}
	for _, c := range show.Capabilities {
		if string(c) == "vision" {
			return true
		}
	}
	return false
}

// toolFamilies are model families known to handle tool calls, used when the
// server is too old to report capabilities.
var toolFamilies = []string{"qwen3", "qwen2.5", "qwen2", "llama3.1", "llama3.2", "llama3.3", "llama4",
	"mistral", "mixtral", "command-r", "granite3", "granite4", "gpt-oss", "firefunction", "hermes3", "smollm2", "devstral", "phi4-mini"}

func (p *ollamaProvider) pickModel(ctx context.Context, log *slog.Logger) (string, error) {
	list, err := p.client.List(ctx)
	if err != nil {
		return "", p.wrap(ctx, err)
	}
	if len(list.Models) == 0 {
		return "", &ProviderError{Kind: FailNoModel, Provider: KindOllama,
			Msg: fmt.Sprintf("the Ollama server at %s has no models: pull a tool-capable one, e.g. `ollama pull qwen3:8b`, or set one with --model", p.base)}
	}
	reported := false
	for _, m := range list.Models {
		show, err := p.client.Show(ctx, &api.ShowRequest{Model: m.Name})
		if err != nil {
			if isUnreachable(err) || isCanceled(ctx, err) {
				return "", p.wrap(ctx, err)
			}
			continue
		}
		if len(show.Capabilities) > 0 {
			reported = true
		}
		for _, c := range show.Capabilities {
			if string(c) == "tools" {
				log.Info(fmt.Sprintf("no model set; using %s, the first tool-capable model on the server", m.Name), "server", p.base)
				return m.Name, nil
			}
		}
	}
	if !reported {
		for _, m := range list.Models {
			name := strings.ToLower(m.Name)
			for _, fam := range toolFamilies {
				if strings.HasPrefix(name, fam) {
					log.Info(fmt.Sprintf("no model set; using %s, a model of a tool-capable family (the server does not report capabilities)", m.Name), "server", p.base)
					return m.Name, nil
				}
			}
		}
	}
	return "", &ProviderError{Kind: FailNoModel, Provider: KindOllama,
		Msg: fmt.Sprintf("none of the %d models on the Ollama server at %s can call tools: pull one, e.g. `ollama pull qwen3:8b`, or set one with --model", len(list.Models), p.base)}
}

func (p *ollamaProvider) Chat(ctx context.Context, msgs []Message, tools []ToolSpec) (Reply, error) {
	stream := true
	req := &api.ChatRequest{Model: p.model, Messages: toOllamaMessages(msgs), Stream: &stream}
	for _, t := range tools {
		ot, err := toOllamaTool(t)
		if err != nil {
			return Reply{}, fmt.Errorf("converting tool %s for Ollama: %w", t.Name, err)
		}
		req.Tools = append(req.Tools, ot)
	}
	var (
		reply   Reply
		content strings.Builder
		done    bool
		start   = p.now()
	)
	reply.Message.Role = RoleAssistant
	budget := answerBudget{provider: KindOllama}
	var cut error
	err := p.client.Chat(ctx, req, func(r api.ChatResponse) error {
		if reply.FirstByte == 0 {
			reply.FirstByte = max(p.now().Sub(start), 1)
		}
		if cut = budget.add(len(r.Message.Content), 0); cut != nil {
			return cut // stops the client reading the stream
		}
		content.WriteString(r.Message.Content)
		for _, tc := range r.Message.ToolCalls {
			id := tc.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", len(reply.Message.ToolCalls)+1)
			}
			args, err := tc.Function.Arguments.MarshalJSON()
			if err != nil {
				return fmt.Errorf("malformed tool call arguments: %w", err)
			}
			if cut = budget.add(0, len(args)); cut != nil {
				return cut
			}
			reply.Message.ToolCalls = append(reply.Message.ToolCalls, ToolCall{ID: id, Name: tc.Function.Name, Arguments: args})
		}
		if r.Done {
			done = true
			reply.PromptTokens = r.PromptEvalCount
			reply.CompletionTokens = r.EvalCount
		}
		return nil
	})
	if cut != nil {
		return Reply{}, cut
	}
	if err != nil {
		return Reply{}, p.wrap(ctx, err)
	}
	if !done {
		return Reply{}, &ProviderError{Kind: FailMalformed, Provider: KindOllama,
			Msg: fmt.Sprintf("the Ollama server at %s ended the answer without its final chunk", p.base)}
	}
	reply.Message.Content = content.String()
	return reply, nil
}

// wrap turns a client error into a *ProviderError with a message that says
// what to do.
func (p *ollamaProvider) wrap(ctx context.Context, err error) error {
	pe := &ProviderError{Provider: KindOllama, Err: err}
	var se api.StatusError
	var ae api.AuthorizationError
	switch {
	case isCanceled(ctx, err):
		pe.Kind, pe.Msg = FailCanceled, "the model call was stopped"
	case isUnreachable(err):
		pe.Kind = FailUnreachable
		pe.Msg = fmt.Sprintf("cannot reach the Ollama server at %s: is it running? start it with `ollama serve`", p.base)
	case errors.As(err, &ae):
		pe.Kind = FailAuth
		pe.Msg = fmt.Sprintf("the Ollama server at %s refused the request as unauthorized", p.base)
	case errors.As(err, &se) && se.StatusCode == http.StatusNotFound:
		pe.Kind = FailModelNotFound
		pe.Msg = fmt.Sprintf("model %s not found on the server: pull it (`ollama pull %s`) or choose another with --model", p.model, p.model)
	case errors.As(err, &se) && se.StatusCode == http.StatusBadRequest && strings.Contains(se.ErrorMessage, "does not support tools"):
		pe.Kind = FailNoTools
		pe.Msg = fmt.Sprintf("model %s cannot call tools: choose a tool-capable model with --model (for example qwen3:8b)", p.model)
	case errors.As(err, &se):
		pe.Kind = FailServer
		pe.Msg = fmt.Sprintf("the Ollama server at %s failed with status %d", p.base, se.StatusCode)
	default:
		var syn *json.SyntaxError
		pe.Kind = FailMalformed
		pe.Msg = fmt.Sprintf("the Ollama server at %s sent an answer that could not be read", p.base)
		if errors.As(err, &syn) {
			pe.Err = fmt.Errorf("invalid JSON in the stream: %w", err)
		} else {
			pe.Err = errors.New(truncate(err.Error(), 200))
		}
	}
	return pe
}

func toOllamaMessages(msgs []Message) []api.Message {
	out := make([]api.Message, 0, len(msgs))
	for _, m := range msgs {
		om := api.Message{Role: m.Role, Content: m.Content, ToolName: m.ToolName, ToolCallID: m.ToolCallID}
		for _, im := range m.Images {
			if len(im.Data) > 0 {
				om.Images = append(om.Images, api.ImageData(im.Data))
			}
		}
		for i, tc := range m.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			if len(tc.Arguments) > 0 {
				_ = args.UnmarshalJSON(tc.Arguments) // bad JSON from the model goes back as {}
			}
			om.ToolCalls = append(om.ToolCalls, api.ToolCall{ID: tc.ID,
				Function: api.ToolCallFunction{Index: i, Name: tc.Name, Arguments: args}})
		}
		out = append(out, om)
	}
	return out
}

func toOllamaTool(t ToolSpec) (api.Tool, error) {
	params := t.Parameters
	if params == nil {
		params = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	b, err := json.Marshal(params)
	if err != nil {
		return api.Tool{}, err
	}
	var fp api.ToolFunctionParameters
	if err := json.Unmarshal(b, &fp); err != nil {
		return api.Tool{}, err
	}
	if fp.Properties == nil {
		fp.Properties = api.NewToolPropertiesMap()
	}
	return api.Tool{Type: "function", Function: api.ToolFunction{Name: t.Name, Description: t.Description, Parameters: fp}}, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return validPrefix(s, n) + "…"
}
