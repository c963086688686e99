package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/tend-agent/tend/watchers"
)

func getDef(t *testing.T, g *globalOptions, ref string) watchers.Definition {
	t.Helper()
	c, _ := g.client()
	v, err := c.Get(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	return v.Definition
}

// `tend edit` sends only the leaves the user set, so nested objects keep
// their other fields; --no-X removes X.
func TestCLIEditKeepsNestedFields(t *testing.T) {
	g, _ := startCLIDaemon(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "build.log"), nil, 0o644)
	if _, err := run(t, g, "add", dir, "--name", "w", "--instructions", "x", "--provider", "openai", "--model", "m1",
		"--base-url", "http://127.0.0.1:9/v1", "--key", "local", "--tail", "build.log", "--ok-pattern", "PASS", "--fail-pattern", "FAIL",
		"--max-fires", "7", "--cooldown", "6"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		args  []string
		check func(d watchers.Definition) bool
	}{
		{[]string{"--cooldown", "30"}, func(d watchers.Definition) bool {
			return d.Guards == watchers.Guards{CooldownSeconds: 30, MaxFires: 7}
		}},
		{[]string{"--ok-pattern", "OK"}, func(d watchers.Definition) bool {
			return d.Tail != nil && *d.Tail == watchers.Tail{File: "build.log", OKPattern: "OK", FailPattern: "FAIL"}
		}},
		{[]string{"--model", "m2"}, func(d watchers.Definition) bool {
			return d.Provider == watchers.Provider{Kind: "openai", Model: "m2", BaseURL: "http://127.0.0.1:9/v1", KeyName: "local"}
		}},
		{[]string{"--vision"}, func(d watchers.Definition) bool {
			return d.Provider == watchers.Provider{Kind: "openai", Model: "m2", BaseURL: "http://127.0.0.1:9/v1", KeyName: "local", Vision: true}
		}},
		{[]string{"--vision=false"}, func(d watchers.Definition) bool { return !d.Provider.Vision && d.Provider.Model == "m2" }},
		{[]string{"--no-fail-pattern", "--no-max-fires", "--no-key"}, func(d watchers.Definition) bool {
			return d.Tail.FailPattern == "" && d.Tail.OKPattern == "OK" && d.Guards.MaxFires == 0 && d.Guards.CooldownSeconds == 30 &&
				d.Provider.KeyName == "" && d.Provider.Model == "m2"
		}},
		{[]string{"--schedule", "every 1h"}, func(d watchers.Definition) bool { return d.Schedule == "every 1h" }},
		{[]string{"--no-schedule", "--no-tail"}, func(d watchers.Definition) bool {
			return d.Schedule == "" && d.Tail == nil && d.Guards.CooldownSeconds == 30
		}},
	}
	for _, s := range steps {
		if _, err := run(t, g, append([]string{"edit", "w"}, s.args...)...); err != nil {
			t.Fatalf("edit %v: %v", s.args, err)
		}
		if d := getDef(t, g, "w"); !s.check(d) {
			t.Errorf("after edit %v: guards %+v tail %+v provider %+v check %q schedule %q", s.args, d.Guards, d.Tail, d.Provider, d.Check, d.Schedule)
		}
	}
	if _, err := run(t, g, "edit", "w", "--tail", "build.log", "--no-tail"); err == nil || !strings.Contains(err.Error(), "contradict") {
		t.Errorf("--tail with --no-tail: %v", err)
	}
	// A check, on a template so that no check runs while the test ends.
	if _, err := run(t, g, "add", "--template", "--name", "tpl", "--instructions", "x", "--schedule", "every 1h", "--check", "true"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, g, "edit", "tpl", "--no-check", "--no-schedule"); err != nil {
		t.Fatal(err)
	}
	if d := getDef(t, g, "tpl"); d.Check != "" || d.Schedule != "" {
		t.Errorf("--no-check --no-schedule left check %q schedule %q", d.Check, d.Schedule)
	}
}

// Resume says why when it would change nothing.
func TestCLIResumeTemplateRefused(t *testing.T) {
	g, _ := startCLIDaemon(t)
	if _, err := run(t, g, "add", "--template", "--name", "notes", "--instructions", "x"); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, g, "resume", "notes")
	if err == nil || !strings.Contains(err.Error(), "notes is a template") || strings.Contains(out, "resumed") {
		t.Errorf("tend resume on a template: %q, %v; want an error saying it is a template", out, err)
	}
}

// Choosing OpenAI with no key stored warns, naming `tend key set`; it is
// not an error, and with a key or a server of one's own there is no warning.
func TestCLIOpenAIWithoutKeyWarns(t *testing.T) {
	keyring.MockInit()
	t.Setenv("OPENAI_API_KEY", "")
	g, _ := startCLIDaemon(t)
	out, err := run(t, g, "add", t.TempDir(), "--name", "a", "--instructions", "x", "--provider", "openai")
	if err != nil || !strings.Contains(out, "warning:") || !strings.Contains(out, "`tend key set openai`") {
		t.Errorf("add --provider openai without a key: %q, %v; want a warning naming tend key set openai", out, err)
	}
	out, err = run(t, g, "add", t.TempDir(), "--name", "b", "--instructions", "x", "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1")
	if err != nil || strings.Contains(out, "warning:") {
		t.Errorf("add with a base URL: %q, %v; want no warning", out, err)
	}
	if err := keyring.Set("tend", "openai", "sk-test"); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, g, "edit", "b", "--no-base-url")
	if err != nil || strings.Contains(out, "warning:") {
		t.Errorf("edit with a key stored: %q, %v; want no warning", out, err)
	}
}
