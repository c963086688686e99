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

// Message is one chat message, in a provider-neutral form.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	ToolName   string     `json:"toolName,omitempty"`
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
}
