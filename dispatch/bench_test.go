package dispatch_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
)

func BenchmarkBuildPrompt(b *testing.B) {
	var changed []dispatch.ChangedPath
	for i := range 5000 {
		changed = append(changed, dispatch.ChangedPath{Path: fmt.Sprintf("a/b/c/file-%05d.txt", i)})
	}
	in := dispatch.PromptInput{Instructions: "Keep it tidy.", Folder: "/home/u/folder", Changed: changed, FirstPass: true}
	for b.Loop() {
		_ = dispatch.BuildPrompt(in)
	}
}

func BenchmarkHistoryAppend(b *testing.B) {
	h := dispatch.OpenHistory(b.TempDir(), "w")
	rec := dispatch.Record{Type: dispatch.RecMessage, RunID: "r", Role: "assistant", Content: "Filed three invoices."}
	for b.Loop() {
		if err := h.Append(rec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOllamaChatRoundTrip is one streamed chat call through the real
// client against the loopback stand-in: the provider's own overhead.
func BenchmarkOllamaChatRoundTrip(b *testing.B) {
	srv := modeltest.NewOllama(b, modeltest.Sequence(modeltest.Text("Nothing to do.")))
	p, err := dispatch.NewProvider(context.Background(), dispatch.ProviderConfig{Model: "qwen3:8b", BaseURL: srv.URL}, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	msgs := []dispatch.Message{{Role: "user", Content: "tidy"}}
	for b.Loop() {
		if _, err := p.Chat(context.Background(), msgs, testTools); err != nil {
			b.Fatal(err)
		}
	}
}
