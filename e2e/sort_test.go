package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/watchers"
)

// Three files dropped into the folder are sorted in one pass: one tool
// round and one final answer, and no further pass, because the run's own
// ledger explains every change the re-fingerprint sees. Once through each
// provider, over its real client library.
func TestNewFilesSortedWithOneModelCall(t *testing.T) {
	t.Parallel()
	keyring.MockInit() // the OpenAI key comes from the (mock) OS keyring
	if err := keyring.Set(dispatch.KeyringService, "openai", "sk-test"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		server   func(testing.TB, modeltest.Script, ...modeltest.Option) *modeltest.Server
		provider func(*modeltest.Server) watchers.Provider
	}{
		{"ollama", modeltest.NewOllama, ollama},
		{"openai", modeltest.NewOpenAI, func(s *modeltest.Server) watchers.Provider {
			return watchers.Provider{Kind: "openai", Model: "gpt-test", BaseURL: s.URL + "/v1"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tc.server(t, sorter)
			e := start(t, envOptions{keys: dispatch.Keys(nil)})
			dir := t.TempDir()
			e.add(watchers.Definition{Name: "inbox", Path: dir, Provider: tc.provider(srv)})

			files := []string{"invoice.pdf", "photo.jpg", "notes.txt"}
			for _, f := range files {
				writeFile(t, filepath.Join(dir, f), "content of "+f, 0o644)
			}
			runs := e.waitRuns("inbox", 1)

			for _, f := range files {
				if got := readFile(t, filepath.Join(dir, "Sorted", f)); got != "content of "+f {
					t.Fatalf("Sorted/%s holds %q", f, got)
				}
				if _, err := os.Lstat(filepath.Join(dir, f)); !os.IsNotExist(err) {
					t.Fatalf("%s is still in the folder (err %v)", f, err)
				}
			}
			if n := srv.Calls(); n != 2 {
				t.Fatalf("the stand-in saw %d chat requests, want 2 (tool round + final answer):%s", n, describe(runs))
			}
			first := firstTurns(srv)
			if len(first) != 1 {
				t.Fatalf("%d first-turn prompts, want 1", len(first))
			}
			got := listed(first[0].FirstUser(), false)
			slices.Sort(got)
			want := slices.Clone(files)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("the prompt lists %v, want %v", got, want)
			}
			if r := runs[0]; r.End.Outcome != dispatch.OutcomeDone || r.End.Passes != 1 {
				t.Fatalf("run ended %s after %d pass(es), want done after 1:%s", r.End.Outcome, r.End.Passes, describe(runs))
			}
			if st := e.state("inbox"); st.Runs != 1 || st.FireCount != 1 {
				t.Fatalf("state counts %d run(s), %d fire(s); want 1 and 1", st.Runs, st.FireCount)
			}
			if n := len(toolRecords(runs[0])); n != 3 {
				t.Fatalf("%d tool calls recorded, want 3", n)
			}
			// The moves do not wake the watcher again.
			e.quiet("inbox", 1)
			if n := srv.Calls(); n != 2 {
				t.Fatalf("the stand-in saw %d chat requests after the run, want 2", n)
			}
		})
	}
}

// A file someone else adds while the model works causes exactly one
// follow-up pass, whose prompt lists only that file.
func TestFileAddedDuringRunGetsOneFollowUpPass(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	release := make(chan struct{})
	first := true
	srv := modeltest.NewOllama(t, func(r modeltest.Request) modeltest.Response {
		if first {
			first = false // requests of one watcher come one at a time
			close(arrived)
			<-release
		}
		return sorter(r)
	})
	e := start(t, envOptions{})
	dir := t.TempDir()
	e.add(watchers.Definition{Name: "inbox", Path: dir, Provider: ollama(srv)})
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		writeFile(t, filepath.Join(dir, f), f, 0o644)
	}
	select {
	case <-arrived:
	case <-t.Context().Done():
	}
	writeFile(t, filepath.Join(dir, "late.txt"), "added by someone else", 0o644)
	close(release)

	runs := e.waitRuns("inbox", 1)
	r := runs[0]
	if r.End.Passes != 2 || r.End.Outcome != dispatch.OutcomeDone {
		t.Fatalf("run ended %s after %d pass(es), want done after 2:%s", r.End.Outcome, r.End.Passes, describe(runs))
	}
	turns := firstTurns(srv)
	if len(turns) != 2 {
		t.Fatalf("%d first-turn prompts, want 2 (the pass and one follow-up)", len(turns))
	}
	if got := listed(turns[1].FirstUser(), true); !slices.Equal(got, []string{"late.txt"}) {
		t.Fatalf("the follow-up prompt lists %v, want only late.txt:\n%s", got, turns[1].FirstUser())
	}
	if !strings.Contains(turns[1].FirstUser(), "late.txt") || strings.Contains(turns[1].FirstUser(), "a.txt") {
		t.Fatalf("the follow-up prompt mentions files it should not:\n%s", turns[1].FirstUser())
	}
	for _, f := range []string{"a.txt", "b.txt", "c.txt", "late.txt"} {
		if _, err := os.Stat(filepath.Join(dir, "Sorted", f)); err != nil {
			t.Fatalf("%s was not sorted: %v", f, err)
		}
	}
	if n := srv.Calls(); n != 4 {
		t.Fatalf("the stand-in saw %d chat requests, want 4 (two per pass)", n)
	}
	e.quiet("inbox", 1)
}
