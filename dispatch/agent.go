package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Defaults of the agent loop (see the design's Numbers).
const (
	DefaultMaxRounds     = 15
	DefaultTimeout       = 30 * time.Minute
	DefaultMaxToolResult = 15000
)

// Outcomes of a run.
const (
	OutcomeDone      = "done"
	OutcomeMaxRounds = "max-rounds"
	OutcomeTimeout   = "timeout"
	OutcomeStopped   = "stopped"
	OutcomeFailed    = "failed"
)

// AgentOptions tune RunAgent; zero values mean the defaults.
type AgentOptions struct {
	MaxRounds     int           // model calls per run (default 15)
	Timeout       time.Duration // whole run (default 30 min)
	MaxToolResult int           // characters of a tool result sent back (default 15000)
	Clock         func() time.Time
	// System is an optional system message sent before the prompt.
	System string
	// OnEvent, when set, sees each message, tool call and result as it
	// happens (for live views). It runs on the loop's goroutine.
	OnEvent func(Event)
}

// Event kinds.
const (
	EventMessage    = "message"     // a user or assistant message
	EventToolCall   = "tool-call"   // a tool is about to run
	EventToolResult = "tool-result" // a tool finished
)

// Event is one step of a run, for OnEvent.
type Event struct {
	Kind    string
	Round   int
	Message *Message        // for EventMessage
	Tool    *ToolCallRecord // for tool events (Result empty for EventToolCall)
}

// ToolCallRecord is one executed tool call.
type ToolCallRecord struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Result string          `json:"result"` // as sent back to the model (capped)
	// Images went with the result to a model that can see (references in
	// JSON; the bytes stay in memory).
	Images   []Image       `json:"images,omitempty"`
	Err      bool          `json:"error"`
	Duration time.Duration `json:"duration"`
}

// Transcript is the full record of one agent run.
type Transcript struct {
	Messages         []Message
	ToolCalls        []ToolCallRecord
	Outcome          string
	Reason           string
	PromptTokens     int
	CompletionTokens int
	Rounds           int
	Started, Ended   time.Time
	// FirstByte is the time to the first streamed byte of the first model
	// call.
	FirstByte time.Duration
}

// RunAgent sends the prompt and runs the tool calls the model asks for,
// sending each result back, until the model answers without tool calls,
// MaxRounds model calls were made, or Timeout passed. A cancelled ctx stops
// promptly with outcome "stopped"; a provider failure ends the run with
// outcome "failed" and returns the *ProviderError as well. tools may be nil:
// then no tools are offered.
func RunAgent(ctx context.Context, p Provider, tools Toolbox, prompt string, opts AgentOptions) (Transcript, error) {
	opts = withAgentDefaults(opts)
	tr := Transcript{Started: opts.Clock()}
	runCtx, cancel := context.WithTimeoutCause(ctx, opts.Timeout, errRunTimeout)
	defer cancel()

	var specs []ToolSpec
	if tools != nil {
		specs = tools.Specs()
	}
	a := &agent{tr: &tr, opts: opts, tools: tools, specs: specs, sees: CanSee(p)}
	if opts.System != "" {
		a.add(Message{Role: RoleSystem, Content: opts.System}, 0)
	}
	a.add(Message{Role: RoleUser, Content: prompt}, 0)

	err := a.loop(ctx, runCtx, p)
	tr.Ended = opts.Clock()
	return tr, err
}

var errRunTimeout = errors.New("run timed out")

type agent struct {
	tr    *Transcript
	opts  AgentOptions
	tools Toolbox
	specs []ToolSpec
	sees  bool // the model takes pictures with tool results
}

func withAgentDefaults(o AgentOptions) AgentOptions {
	if o.MaxRounds <= 0 {
		o.MaxRounds = DefaultMaxRounds
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxToolResult <= 0 {
		o.MaxToolResult = DefaultMaxToolResult
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return o
}

func (a *agent) add(m Message, round int) {
	a.tr.Messages = append(a.tr.Messages, m)
	if a.opts.OnEvent != nil {
		a.opts.OnEvent(Event{Kind: EventMessage, Round: round, Message: &m})
	}
}

// interrupted reports whether the run must end now, and sets the outcome.
func (a *agent) interrupted(parent, run context.Context) bool {
	switch {
	case parent.Err() != nil:
		a.tr.Outcome = OutcomeStopped
		a.tr.Reason = "the run was stopped: " + context.Cause(parent).Error()
	case run.Err() != nil || a.opts.Clock().Sub(a.tr.Started) >= a.opts.Timeout:
		a.tr.Outcome = OutcomeTimeout
		a.tr.Reason = fmt.Sprintf("the run took longer than %s and was cut off", a.opts.Timeout)
	default:
		return false
	}
	return true
}

func (a *agent) loop(parent, run context.Context, p Provider) error {
	for round := 1; ; round++ {
		if a.interrupted(parent, run) {
			return nil
		}
		if round > a.opts.MaxRounds {
			a.tr.Outcome = OutcomeMaxRounds
			a.tr.Reason = fmt.Sprintf("the model was still calling tools after %d rounds", a.opts.MaxRounds)
			return nil
		}
		reply, err := p.Chat(run, a.tr.Messages, a.specs)
		a.tr.Rounds = round
		if err != nil {
			if a.interrupted(parent, run) {
				return nil
			}
			a.tr.Outcome = OutcomeFailed
			a.tr.Reason = err.Error()
			return err
		}
		if round == 1 {
			a.tr.FirstByte = reply.FirstByte
		}
		a.tr.PromptTokens += reply.PromptTokens
		a.tr.CompletionTokens += reply.CompletionTokens
		msg := reply.Message
		msg.Role = RoleAssistant
		huge := dropHugeArgs(msg.ToolCalls)
		a.add(msg, round)
		if len(msg.ToolCalls) == 0 {
			a.tr.Outcome = OutcomeDone
			a.tr.Reason = "the model finished"
			return nil
		}
		for i, call := range msg.ToolCalls {
			if a.interrupted(parent, run) {
				return nil
			}
			a.runTool(run, call, round, huge[i])
		}
	}
}

// runTool runs one call; tooLarge > 0 is the size of arguments that were
// too large and are refused.
func (a *agent) runTool(ctx context.Context, call ToolCall, round int, tooLarge int) {
	rec := ToolCallRecord{ID: call.ID, Name: call.Name, Args: call.Arguments}
	if a.opts.OnEvent != nil {
		r := rec
		a.opts.OnEvent(Event{Kind: EventToolCall, Round: round, Tool: &r})
	}
	start := a.opts.Clock()
	var (
		result string
		images []Image
		err    error
	)
	switch {
	case a.tools == nil || len(a.specs) == 0:
		err = errors.New("no tools are available in this run")
	case !a.known(call.Name):
		err = fmt.Errorf("unknown tool %q; the tools are: %s", call.Name, a.toolNames())
	case tooLarge > 0:
		err = fmt.Errorf("the arguments are %d bytes, too large: a tool call may carry at most %s; write a large file in parts (file_write, then file_edit)", tooLarge, sizeText(MaxToolArgs))
	case len(call.Arguments) > 0 && !json.Valid(call.Arguments):
		err = errors.New("the arguments are not valid JSON: send a JSON object")
	default:
		args := call.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		result, images, err = a.call(ctx, call.Name, args)
	}
	rec.Duration = a.opts.Clock().Sub(start)
	if err != nil {
		rec.Err = true
		result = "error: " + err.Error()
	}
	rec.Result = capText(result, a.opts.MaxToolResult)
	rec.Images = images
	a.tr.ToolCalls = append(a.tr.ToolCalls, rec)
	if a.opts.OnEvent != nil {
		r := rec
		a.opts.OnEvent(Event{Kind: EventToolResult, Round: round, Tool: &r})
	}
	a.add(Message{Role: RoleTool, Content: rec.Result, ToolCallID: call.ID, ToolName: call.Name, Images: images}, round)
}

// call runs a tool, through CallResult when the toolbox can hand back
// pictures and the model can see them.
func (a *agent) call(ctx context.Context, name string, args json.RawMessage) (string, []Image, error) {
	rt, ok := a.tools.(ResultToolbox)
	if !ok || !a.sees {
		out, err := a.tools.Call(ctx, name, args)
		return out, nil, err
	}
	r, err := rt.CallResult(ctx, name, args)
	if err != nil {
		return "", nil, err
	}
	return r.Text, r.Images, nil
}

// tooLargeArgs stands for refused arguments in the transcript, the
// history and the conversation sent back, which then stay small.
func tooLargeArgs(n int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"refused":"arguments of %d bytes, too large"}`, n))
}

// dropHugeArgs replaces oversized arguments by a short note, keeping only
// their size (returned per call, 0 for the others), so they are neither
// run nor kept in the conversation.
func dropHugeArgs(calls []ToolCall) []int {
	sizes := make([]int, len(calls))
	for i, c := range calls {
		if len(c.Arguments) > MaxToolArgs {
			sizes[i] = len(c.Arguments)
			calls[i].Arguments = tooLargeArgs(sizes[i])
		}
	}
	return sizes
}

func (a *agent) known(name string) bool {
	for _, s := range a.specs {
		if s.Name == name {
			return true
		}
	}
	return false
}

func (a *agent) toolNames() string {
	names := make([]string, len(a.specs))
	for i, s := range a.specs {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

// capText keeps at most max characters of s, then a marker saying how many
// were cut.
func capText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == max {
			break
		}
		count++
	}
	return s[:i] + fmt.Sprintf("\n[… %d characters cut]", n-max)
}
