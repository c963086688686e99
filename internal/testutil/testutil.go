// Package testutil holds helpers shared by the integration tests of the
// watchers and the daemon: a runner that records every pass instead of
// calling a model, condition waits with deadlines, and small file helpers.
package testutil

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/fingerprint"
	"github.com/tend-agent/tend/watchers"
)

// WaitLimit is how long a condition may take before a test fails.
const WaitLimit = 20 * time.Second

// WaitFor polls cond every few milliseconds until it holds, failing the
// test with what (and the optional detail) after WaitLimit.
func WaitFor(t testing.TB, what string, cond func() bool, detail ...func() string) {
	t.Helper()
	deadline := time.Now().Add(WaitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			msg := ""
			for _, d := range detail {
				msg += " " + d()
			}
			t.Fatalf("timed out after %s waiting for %s%s", WaitLimit, what, msg)
		}
		time.Sleep(3 * time.Millisecond)
	}
}

// Runner is a daemon.Runner that records every pass and run summary and
// reports each pass as done, touching nothing.
type Runner struct {
	mu       sync.Mutex
	passes   []watchers.PassRequest
	finishes []watchers.RunSummary
}

// Pass records the request.
func (r *Runner) Pass(ctx context.Context, req watchers.PassRequest) watchers.PassResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := *req.Def
	req.Def = &c
	r.passes = append(r.passes, req)
	return watchers.PassResult{Outcome: "done"}
}

// Finish records the summary.
func (r *Runner) Finish(ctx context.Context, sum watchers.RunSummary) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finishes = append(r.finishes, sum)
}

// Undo is not supported by the recording runner.
func (r *Runner) Undo(ctx context.Context, def *watchers.Definition, runID string) (api.UndoResponse, error) {
	return api.UndoResponse{}, errors.New("the recording runner cannot undo")
}

// History is empty.
func (r *Runner) History(def *watchers.Definition) (json.RawMessage, error) {
	return json.RawMessage("[]"), nil
}

// Passes returns the passes of the watcher named name ("" = all).
func (r *Runner) Passes(name string) []watchers.PassRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []watchers.PassRequest
	for _, p := range r.passes {
		if name == "" || p.Def.Name == name {
			out = append(out, p)
		}
	}
	return out
}

// Finished counts the finished runs of the watcher named name ("" = all).
func (r *Runner) Finished(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range r.finishes {
		if name == "" || s.Def.Name == name {
			n++
		}
	}
	return n
}

// Describe lists the recorded passes, for failure messages.
func (r *Runner) Describe() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, _ := json.Marshal(struct {
		Passes []passView
	}{viewPasses(r.passes)})
	return string(b)
}

type passView struct {
	Watcher, Trigger string
	Changes          fingerprint.Changes
}

func viewPasses(ps []watchers.PassRequest) []passView {
	out := make([]passView, 0, len(ps))
	for _, p := range ps {
		out = append(out, passView{p.Def.Name, p.Trigger, p.Changes})
	}
	return out
}

// Norm returns a copy of ch with nil lists made empty and every list
// sorted, for comparisons.
func Norm(ch fingerprint.Changes) fingerprint.Changes {
	f := func(in []string) []string {
		out := append([]string{}, in...)
		slices.Sort(out)
		return out
	}
	return fingerprint.Changes{Added: f(ch.Added), Removed: f(ch.Removed), Modified: f(ch.Modified)}
}

// Equal reports whether two change sets list the same paths.
func Equal(a, b fingerprint.Changes) bool {
	a, b = Norm(a), Norm(b)
	return slices.Equal(a.Added, b.Added) && slices.Equal(a.Removed, b.Removed) && slices.Equal(a.Modified, b.Modified)
}

// Write creates or replaces root/rel with content, making parents.
func Write(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ShortTempDir is a temporary folder with a short path, so that a unix
// socket inside it stays under the 108-byte limit; it is removed when the
// test ends.
func ShortTempDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "tend")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}
