package e2e

import (
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/watchers"
)

// closedURL returns a loopback URL where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// Provider failures end the run with a clear recorded reason, touch
// nothing, and after three in a row put the watcher in "error".
func TestProviderFailuresEndRunAndErrorAfterThree(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		provider func(t *testing.T) watchers.Provider
		reason   []string // each must appear in the recorded reason
		runs     int      // 3: also check the watcher goes to "error"
	}{
		{"connection-refused", func(t *testing.T) watchers.Provider {
			return watchers.Provider{Kind: "ollama", Model: "qwen3:8b", BaseURL: closedURL(t)}
		}, []string{"refused"}, 3},
		{"unauthorized", func(t *testing.T) watchers.Provider {
			srv := modeltest.NewOpenAI(t, sorter, modeltest.WithKey("sk-right"))
			return watchers.Provider{Kind: "openai", Model: "gpt-test", BaseURL: srv.URL + "/v1"}
		}, []string{"401"}, 1},
		{"unknown-model", func(t *testing.T) watchers.Provider {
			srv := modeltest.NewOllama(t, sorter)
			return watchers.Provider{Kind: "ollama", Model: "no-such-model:1b", BaseURL: srv.URL}
		}, []string{"no-such-model"}, 1},
		{"server-error", func(t *testing.T) watchers.Provider {
			srv := modeltest.NewOllama(t, modeltest.Sequence(modeltest.Error(500, "the model runner crashed")))
			return watchers.Provider{Kind: "ollama", Model: "qwen3:8b", BaseURL: srv.URL}
		}, []string{"500"}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := start(t, envOptions{keys: staticKeys{"openai": "sk-wrong"}})
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "keep.txt"), "untouched", 0o644)
			e.add(watchers.Definition{Name: "failing", Path: dir, Provider: tc.provider(t)})
			before := snapshot(t, dir)
			for i := 1; i <= tc.runs; i++ {
				if _, err := e.c.Run(e.ctx, "failing", false); err != nil {
					t.Fatalf("run %d: %v", i, err)
				}
				runs := e.waitRuns("failing", i)
				end := runs[0].End
				if end.Outcome != dispatch.OutcomeFailed {
					t.Fatalf("run %d ended %q, want failed:%s", i, end.Outcome, describe(runs[:1]))
				}
				for _, want := range tc.reason {
					if !strings.Contains(strings.ToLower(end.Reason), strings.ToLower(want)) {
						t.Fatalf("run %d: reason %q does not say %q", i, end.Reason, want)
					}
				}
				if strings.Contains(end.Reason, "sk-wrong") {
					t.Fatalf("the reason shows the API key: %q", end.Reason)
				}
				st := e.state("failing")
				if i < 3 && st.Phase == watchers.PhaseError {
					t.Fatalf("in error after %d failure(s): %s", i, st.Reason)
				}
				if i == 3 && (st.Phase != watchers.PhaseError || !strings.Contains(st.Reason, "3 failed runs")) {
					t.Fatalf("after 3 failures: phase %s (%q), want error", st.Phase, st.Reason)
				}
				t.Logf("run %d: %s", i, end.Reason)
			}
			assertSame(t, "the folder after failed runs", before, snapshot(t, dir))
		})
	}
}

// Pausing a watcher during a run cancels the model request at once; the
// run is recorded as stopped.
func TestPauseStopsRunPromptly(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOllama(t, modeltest.Sequence(modeltest.Response{Hang: true}))
	e := start(t, envOptions{})
	dir := t.TempDir()
	e.add(watchers.Definition{Name: "slow", Path: dir, Provider: ollama(srv)})
	writeFile(t, filepath.Join(dir, "x.txt"), "x", 0o644)
	e.waitFor("the model request", func() bool { return srv.Calls() == 1 })
	if err := e.c.Pause(e.ctx, "slow"); err != nil {
		t.Fatal(err)
	}
	runs := e.waitRuns("slow", 1)
	if end := runs[0].End; end.Outcome != dispatch.OutcomeStopped {
		t.Fatalf("the paused run ended %q (%s), want stopped", end.Outcome, end.Reason)
	}
	if st := e.state("slow"); st.Phase != watchers.PhasePaused {
		t.Fatalf("phase %s after pause", st.Phase)
	}
	if n := srv.Calls(); n != 1 {
		t.Fatalf("%d model requests, want 1", n)
	}
}

// At most two runs go at once across watchers; a third waits its turn and
// then runs to the end.
func TestAtMostTwoRunsAtOnce(t *testing.T) {
	t.Parallel()
	var (
		mu                  sync.Mutex
		inflight, most, all int
	)
	release := make(chan struct{})
	srv := modeltest.NewOllama(t, func(r modeltest.Request) modeltest.Response {
		mu.Lock()
		inflight++
		all++
		most = max(most, inflight)
		mu.Unlock()
		<-release
		mu.Lock()
		inflight--
		mu.Unlock()
		return modeltest.Text("nothing to do")
	})
	counts := func() (int, int, int) { mu.Lock(); defer mu.Unlock(); return inflight, most, all }
	e := start(t, envOptions{maxRuns: 2})
	names := []string{"one", "two", "three"}
	dirs := map[string]string{}
	for _, n := range names {
		dirs[n] = t.TempDir()
		e.add(watchers.Definition{Name: n, Path: dirs[n], Provider: ollama(srv)})
	}
	for _, n := range names {
		writeFile(t, filepath.Join(dirs[n], "new.txt"), n, 0o644)
	}
	e.waitFor("two requests in flight and all three watchers processing", func() bool {
		in, _, _ := counts()
		if in != 2 {
			return false
		}
		for _, n := range names {
			if e.state(n).Phase != watchers.PhaseProcessing {
				return false
			}
		}
		return true
	})
	st, err := e.c.Status(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.MaxRuns != 2 {
		t.Fatalf("status says %d runs at most, want 2", st.MaxRuns)
	}
	close(release)
	for _, n := range names {
		runs := e.waitRuns(n, 1)
		if end := runs[0].End; end.Outcome != dispatch.OutcomeDone {
			t.Fatalf("%s ended %q (%s), want done", n, end.Outcome, end.Reason)
		}
	}
	if _, most, all := counts(); most != 2 || all != 3 {
		t.Fatalf("%d requests at once at most (want 2), %d in all (want 3)", most, all)
	}
}
