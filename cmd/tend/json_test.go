package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/watchers"
)

var camelKey = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)

// walkJSON calls f for every object key, with its path, in v.
func walkJSON(path string, v any, f func(path, key string, val any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			f(path, k, e)
			walkJSON(path+"."+k, e, f)
		}
	case []any:
		for _, e := range x {
			walkJSON(path+"[]", e, f)
		}
	}
}

// TestJSONOutputs: every --json output parses, its keys are camelCase and
// a time that never happened is absent rather than year 1.
func TestJSONOutputs(t *testing.T) {
	g, _ := startCLIDaemon(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644)
	if _, err := run(t, g, "add", dir, "--name", "inbox", "--instructions", "tidy", "--responsiveness", "fast"); err != nil {
		t.Fatal(err)
	}
	waitCLI(t, g, func(v api.View) bool { return v.State.Phase == watchers.PhaseIdle })
	if _, err := run(t, g, "run", "inbox"); err != nil {
		t.Fatal(err)
	}
	waitCLI(t, g, func(v api.View) bool { return v.State.LastOutcome == "done" && v.State.Phase == watchers.PhaseIdle })
	for _, args := range [][]string{
		{"list", "--json"}, {"show", "inbox", "--json"}, {"status", "--json"}, {"history", "inbox", "--json"},
	} {
		out, err := run(t, g, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("tend %s: not JSON: %v\n%s", strings.Join(args, " "), err, out)
		}
		walkJSON("", v, func(path, key string, val any) {
			if !camelKey.MatchString(key) {
				t.Errorf("tend %s: key %s.%s is not camelCase", strings.Join(args, " "), path, key)
			}
			if s, ok := val.(string); ok && strings.HasPrefix(s, "0001-01-01") {
				t.Errorf("tend %s: %s.%s is the zero time %s; leave it out", strings.Join(args, " "), path, key, s)
			}
		})
	}
}
