package watchers

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A definition file over the cap is refused with its name, before it is
// read whole, and left exactly as it is; the other files still load.
func TestStoreRefusesOversizedFile(t *testing.T) {
	s := &Store{Dir: t.TempDir()}
	ok := &Definition{ID: "ok", Name: "small", Instructions: "x", Responsiveness: "fast", MaxIterations: 5, Provider: Provider{Kind: "ollama"}}
	if err := s.Save(ok); err != nil {
		t.Fatal(err)
	}
	big, _ := json.Marshal(map[string]any{"id": "big", "name": "big", "instructions": strings.Repeat("a", 300<<10)})
	bigPath := filepath.Join(s.Dir, "big.json")
	if err := os.WriteFile(bigPath, big, 0o600); err != nil {
		t.Fatal(err)
	}
	defs, errs := s.LoadAll()
	if len(defs) != 1 || defs[0].Name != "small" {
		t.Errorf("loaded %d definitions, want only small", len(defs))
	}
	var fe *FileError
	if len(errs) != 1 || !errors.As(errs[0], &fe) || fe.Path != bigPath || !strings.Contains(errs[0].Error(), "over the limit of 256 KiB") {
		t.Fatalf("errors %v; want one naming %s and the 256 KiB limit", errs, bigPath)
	}
	if after, _ := os.ReadFile(bigPath); !bytes.Equal(after, big) {
		t.Errorf("the oversized file was changed")
	}
}

// Instructions over the cap are refused with what to do instead.
func TestValidateRefusesLongInstructions(t *testing.T) {
	d := &Definition{ID: "x", Name: "long", Instructions: strings.Repeat("a", MaxInstructionsBytes+1)}
	d.ApplyDefaults()
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "over the limit of 64 KiB") || !strings.Contains(err.Error(), "skill") {
		t.Errorf("got %v, want a refusal naming the 64 KiB limit and skills", err)
	}
	d.Instructions = strings.Repeat("a", MaxInstructionsBytes)
	if err := d.Validate(); err != nil {
		t.Errorf("instructions at the limit: %v", err)
	}
}

func TestValidateBaseURL(t *testing.T) {
	for _, c := range []struct {
		kind, url string
		ok        bool
	}{
		{"ollama", "not a url", false},
		{"ollama", "127.0.0.1:11434", true},
		{"ollama", "http://localhost:11434", true},
		{"ollama", "ftp://host", false},
		{"openai", "https://api.example.com/v1", true},
		{"openai", "api.example.com/v1", false},
		{"openai", "http://", false},
	} {
		d := &Definition{ID: "x", Name: "u", Instructions: "x", Provider: Provider{Kind: c.kind, BaseURL: c.url}}
		d.ApplyDefaults()
		err := d.Validate()
		if (err == nil) != c.ok || (err != nil && !strings.Contains(err.Error(), "is not a URL")) {
			t.Errorf("%s %q: %v", c.kind, c.url, err)
		}
	}
}
