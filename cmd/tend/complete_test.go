package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/watchers"
)

// complete runs cobra's hidden __complete command, as the shell scripts
// do, and returns the candidates (descriptions cut off) and the directive.
func complete(t *testing.T, g *globalOptions, args ...string) ([]string, string) {
	t.Helper()
	out, err := run(t, g, append([]string{"__complete"}, args...)...)
	if err != nil {
		t.Fatalf("__complete %v: %v\n%s", args, err, out)
	}
	var got []string
	directive := ""
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, ":") {
			directive = line
			continue
		}
		if line == "" || strings.HasPrefix(line, "Completion ended") {
			continue
		}
		name, _, _ := strings.Cut(line, "\t")
		got = append(got, name)
	}
	return got, directive
}

func TestCompletion(t *testing.T) {
	g, _ := startCLIDaemon(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644)
	for _, args := range [][]string{
		{"add", dir, "--name", "inbox", "--instructions", "tidy", "--responsiveness", "fast"},
		{"add", t.TempDir(), "--name", "invoices", "--instructions", "file"},
		{"add", "--template", "--name", "tidy", "--instructions", "keep it tidy"},
	} {
		if _, err := run(t, g, args...); err != nil {
			t.Fatal(err)
		}
	}
	waitCLI(t, g, func(v api.View) bool { return v.State.Phase == watchers.PhaseIdle })
	if _, err := run(t, g, "run", "inbox"); err != nil {
		t.Fatal(err)
	}
	waitCLI(t, g, func(v api.View) bool { return v.State.LastOutcome == "done" && v.State.Phase == watchers.PhaseIdle })
	c, _ := g.client()
	v, err := c.Get(t.Context(), "inbox")
	if err != nil {
		t.Fatal(err)
	}
	runID := v.State.LastRunID

	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"show", ""}, []string{"inbox", "invoices", "tidy"}},
		{[]string{"show", "inv"}, []string{"invoices"}},
		{[]string{"run", ""}, []string{"inbox", "invoices"}}, // a template does not run
		{[]string{"edit", "i"}, []string{"inbox", "invoices"}},
		{[]string{"show", "inbox", ""}, nil}, // one name only
		{[]string{"attach", ""}, []string{"tidy"}},
		{[]string{"undo", "inbox", "--run", ""}, []string{runID}},
		{[]string{"history", "inbox", "--run", ""}, []string{runID}},
		{[]string{"history", "invoices", "--run", ""}, nil},
		{[]string{"add", dir, "--provider", ""}, []string{"ollama", "openai"}},
		{[]string{"edit", "inbox", "--responsiveness", "p"}, []string{"patient"}},
		{[]string{"edit", "inbox", "--responsiveness", ""}, watchers.TierNames},
		{[]string{"pause", ""}, []string{"inbox", "invoices"}},
	}
	for _, tc := range cases {
		got, directive := complete(t, g, tc.args...)
		if !slices.Equal(got, tc.want) {
			t.Errorf("tend %q<TAB> = %q, want %q", tc.args, got, tc.want)
		}
		if directive != ":4" && len(tc.want) > 0 {
			t.Errorf("tend %q<TAB>: directive %s, want :4 (no file names)", tc.args, directive)
		}
	}
	// add's PATH and attach's second argument are folders.
	if _, directive := complete(t, g, "add", ""); directive != ":16" {
		t.Errorf("tend add <TAB>: directive %s, want :16 (folders)", directive)
	}
	if _, directive := complete(t, g, "attach", "tidy", ""); directive != ":16" {
		t.Errorf("tend attach tidy <TAB>: directive %s, want :16 (folders)", directive)
	}
}
