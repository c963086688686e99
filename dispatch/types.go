package dispatch

import (
	"context"
	"encoding/json"
	"time"
)

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// ToolSpec describes one tool offered to the model. Parameters is a JSON
// schema object.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// Toolbox is what the agent loop calls tools through. An error returned by
// Call is not fatal: its text goes back to the model as the tool result.
type Toolbox interface {
	Specs() []ToolSpec
	Call(ctx context.Context, name string, args json.RawMessage) (string, error)
}

// ToolResult is a tool's answer: its text, and pictures for a model that
// can see them (file_read of an image).
type ToolResult struct {
	Text   string
	Images []Image
}

// ResultToolbox is a Toolbox whose tools may also hand back pictures. The
// agent loop calls CallResult instead of Call when a toolbox has it; the
// error has Call's meaning.
type ResultToolbox interface {
	Toolbox
	CallResult(ctx context.Context, name string, args json.RawMessage) (ToolResult, error)
}

// Image is a picture sent to the model with a tool result. Data, the
// encoded bytes, is only in memory: the history keeps the reference (path,
// size, hash), never the picture.
type Image struct {
	Path   string `json:"path"`
	MIME   string `json:"mime"` // of Data: image/png or image/jpeg
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Bytes  int    `json:"bytes"`  // length of Data
	SHA256 string `json:"sha256"` // of the file as read, hex
	Data   []byte `json:"-"`
}

// Seer is implemented by providers that know whether their model can see
// pictures.
type Seer interface {
	Vision() bool
}

// CanSee reports whether p's model accepts pictures.
func CanSee(p Provider) bool {
	s, ok := p.(Seer)
	return ok && s.Vision()
}

// Message is one chat message, in a provider-neutral form.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	ToolName   string     `json:"toolName,omitempty"`
	// Images go with a tool result to a model that can see.
	Images []Image `json:"images,omitempty"`
}

// ToolCall is one call the model asked for. Arguments is a JSON object.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Reply is the model's assembled answer to one Chat call.
type Reply struct {
	Message          Message
	PromptTokens     int
	CompletionTokens int
	// FirstByte is the time from sending the request to the first streamed
	// chunk.
	FirstByte time.Duration
}

// Provider is a chat model endpoint. Chat streams under the hood and
// returns the assembled reply; failures are *ProviderError values.
type Provider interface {
	Name() string
	Model() string
	Chat(ctx context.Context, msgs []Message, tools []ToolSpec) (Reply, error)
}

// Provider kinds.
const (
	KindOllama = "ollama"
	KindOpenAI = "openai"
)

// ProviderConfig selects and configures a provider. Zero values mean the
// defaults: Ollama, the server from OLLAMA_HOST (or 127.0.0.1:11434), a
// tool-capable model picked from the server, keyring entry "openai".
type ProviderConfig struct {
	Kind    string `json:"kind,omitempty"`
	Model   string `json:"model,omitempty"`
	BaseURL string `json:"baseURL,omitempty"`
	KeyName string `json:"keyName,omitempty"`
	// Vision says an OpenAI-compatible model accepts pictures (Ollama's
	// server reports it by itself).
	Vision bool `json:"vision,omitempty"`
}
