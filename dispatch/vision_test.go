package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
)

// pictureTools answers file_read with a description and, through
// CallResult, a picture (only the agent loop decides whether to use it).
type pictureTools struct {
	fakeTools
	picture []byte
}

func (p *pictureTools) CallResult(ctx context.Context, name string, args json.RawMessage) (dispatch.ToolResult, error) {
	text, err := p.Call(ctx, name, args)
	if err != nil || name != "file_read" {
		return dispatch.ToolResult{Text: text}, err
	}
	return dispatch.ToolResult{Text: "a.png is a PNG image, 1×1 pixels. The picture is attached.", Images: []dispatch.Image{
		{Path: "a.png", MIME: "image/png", Width: 1, Height: 1, Bytes: len(p.picture), SHA256: "abc", Data: p.picture}}}, nil
}

var visionModel = modeltest.Model{Name: "qwen2.5vl:7b", Capabilities: []string{"completion", "tools", "vision"}}

// A model that can see gets the picture of a file_read with the tool
// result: Ollama on the tool message itself, OpenAI in a user message right
// after the tool messages (the API takes pictures only there). A model that
// cannot see gets the text alone.
func TestPicturesReachAModelThatCanSee(t *testing.T) {
	picture := []byte("\x89PNG\r\n\x1a\n not really a png, bytes to find again")
	script := func() modeltest.Script {
		return modeltest.Sequence(
			modeltest.Calls(modeltest.Call("file_read", `{"path":"a.png"}`), modeltest.Call("file_move", `{"from":"x","to":"y"}`)),
			modeltest.Text("seen"))
	}
	cases := []struct {
		name   string
		cfg    func() (*modeltest.Server, dispatch.ProviderConfig)
		sees   bool
		inUser bool // the picture comes in a user message after the tool messages
	}{
		{"ollama vision model", func() (*modeltest.Server, dispatch.ProviderConfig) {
			s := modeltest.NewOllama(t, script(), modeltest.WithModels(visionModel))
			return s, dispatch.ProviderConfig{Model: visionModel.Name, BaseURL: s.URL}
		}, true, false},
		{"ollama text model", func() (*modeltest.Server, dispatch.ProviderConfig) {
			s := modeltest.NewOllama(t, script())
			return s, dispatch.ProviderConfig{Model: "qwen3:8b", BaseURL: s.URL}
		}, false, false},
		{"openai vision: true", func() (*modeltest.Server, dispatch.ProviderConfig) {
			s := modeltest.NewOpenAI(t, script())
			return s, dispatch.ProviderConfig{Kind: "openai", Model: "gpt-test", BaseURL: s.URL + "/v1", Vision: true}
		}, true, true},
		{"openai without vision", func() (*modeltest.Server, dispatch.ProviderConfig) {
			s := modeltest.NewOpenAI(t, script())
			return s, dispatch.ProviderConfig{Kind: "openai", Model: "gpt-test", BaseURL: s.URL + "/v1"}
		}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, cfg := c.cfg()
			p := newProvider(t, cfg)
			if dispatch.CanSee(p) != c.sees {
				t.Fatalf("CanSee = %v, want %v", dispatch.CanSee(p), c.sees)
			}
			tools := &pictureTools{picture: picture}
			tr, err := dispatch.RunAgent(context.Background(), p, tools, "look", dispatch.AgentOptions{})
			if err != nil || tr.Outcome != dispatch.OutcomeDone {
				t.Fatalf("outcome %s, err %v, reason %s", tr.Outcome, err, tr.Reason)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d chat requests, want 2", len(reqs))
			}
			msgs := reqs[1].Messages
			var with []modeltest.Message
			for _, m := range msgs {
				if len(m.Images) > 0 {
					with = append(with, m)
				}
			}
			if !c.sees {
				if len(with) != 0 {
					t.Fatalf("a model that cannot see got %d messages with pictures", len(with))
				}
				return
			}
			if len(with) != 1 || len(with[0].Images) != 1 || !bytes.Equal(with[0].Images[0], picture) {
				t.Fatalf("messages with pictures: %+v", with)
			}
			last := msgs[len(msgs)-1]
			if c.inUser {
				// system/user prompt, assistant, tool, tool, then the pictures.
				if last.Role != "user" || len(last.Images) != 1 || !strings.Contains(last.Content, "a.png") ||
					msgs[len(msgs)-2].Role != "tool" || msgs[len(msgs)-3].Role != "tool" {
					t.Fatalf("OpenAI conversation: %+v", roles(msgs))
				}
			} else if with[0].Role != "tool" || with[0].ToolName != "file_read" {
				t.Fatalf("Ollama picture on a %s message (%s), want the file_read tool message", with[0].Role, with[0].ToolName)
			}
			// The transcript keeps the reference for the history.
			if im := tr.ToolCalls[0].Images; len(im) != 1 || im[0].SHA256 != "abc" {
				t.Fatalf("transcript images %+v", im)
			}
		})
	}
}

func roles(msgs []modeltest.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role)
	}
	return out
}

// The history stores where a picture came from, its size and its hash,
// never the picture.
func TestHistoryKeepsPictureReferenceOnly(t *testing.T) {
	picture := bytes.Repeat([]byte("PIXELDATA"), 100)
	dir := t.TempDir()
	h := dispatch.OpenHistory(dir, "w1")
	tr := dispatch.Transcript{
		Messages: []dispatch.Message{{Role: "user", Content: "look"}, {Role: "assistant", ToolCalls: []dispatch.ToolCall{{ID: "1", Name: "file_read"}}},
			{Role: "tool", Content: "attached", ToolCallID: "1", ToolName: "file_read", Images: []dispatch.Image{{Path: "a.png", Data: picture}}}},
		ToolCalls: []dispatch.ToolCallRecord{{ID: "1", Name: "file_read", Result: "attached",
			Images: []dispatch.Image{{Path: "a.png", MIME: "image/png", Width: 3, Height: 2, Bytes: len(picture), SHA256: "feed", Data: picture}}}},
	}
	if err := h.AppendTranscript("r1", 1, tr); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 {
		t.Fatalf("history files %v", files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("PIXELDATA")) || bytes.Contains(raw, []byte("UElYRUxEQVRB")) {
		t.Fatal("the history holds the picture's bytes")
	}
	runs, err := dispatch.ReadHistory(files[0])
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v, err %v", runs, err)
	}
	var found bool
	for _, r := range runs[0].Records {
		if len(r.Images) == 1 && r.Images[0].Path == "a.png" && r.Images[0].SHA256 == "feed" && r.Images[0].Bytes == len(picture) && r.Images[0].Width == 3 {
			found = true
		}
	}
	if !found {
		t.Fatalf("no tool record with the picture's reference: %s", raw)
	}
}
