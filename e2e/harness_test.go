package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/tend-agent/tend/daemon/daemontest"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/runner"
	"github.com/tend-agent/tend/sandbox"
	"github.com/tend-agent/tend/watchers"
)

// waitLimit bounds every wait on a condition; conditions normally hold
// within a few seconds (one debounce window plus the 2 s settle time).
const waitLimit = 20 * time.Second

// env is one running daemon on a fresh TEND_HOME, with a trash folder of
// its own so the user's trash is never touched.
type env struct {
	t     *testing.T
	ctx   context.Context
	home  home.Home
	trash string
	c     *api.Client
}

type envOptions struct {
	maxRuns int
	keys    dispatch.KeyStore // nil: a store with no keys
}

// staticKeys is a KeyStore holding fixed keys in memory.
type staticKeys map[string]string

func (k staticKeys) Get(name string) (string, error) {
	if s, ok := k[name]; ok {
		return s, nil
	}
	return "", fmt.Errorf("key %s: %w", name, dispatch.ErrKeyNotFound)
}
func (k staticKeys) Set(name, secret string) error { return fmt.Errorf("read-only test key store") }
func (k staticKeys) Delete(name string) error      { return fmt.Errorf("read-only test key store") }

func start(t *testing.T, o envOptions) *env {
	t.Helper()
	dir := t.TempDir()
	if len(dir) > 80 { // unix socket paths are limited to about 104 bytes
		d, err := os.MkdirTemp("", "tend-e2e-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		dir = d
	}
	h := home.Home{Dir: filepath.Join(dir, "home")}
	trash := filepath.Join(t.TempDir(), "Trash")
	keys := o.keys
	if keys == nil {
		keys = staticKeys{}
	}
	log := slog.New(slog.DiscardHandler)
	if testing.Verbose() && os.Getenv("TEND_E2E_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	r := runner.New(runner.Config{Home: h, Trash: sandbox.FreedesktopTrash{Dir: trash}, Keys: keys, Log: log})
	daemontest.Start(t, daemon.Config{Home: h, Runner: r, MaxRuns: o.maxRuns, Log: log})
	return &env{t: t, ctx: context.Background(), home: h, trash: trash, c: api.NewClient(h.Socket())}
}

// ollama points a definition at an Ollama stand-in.
func ollama(srv *modeltest.Server) watchers.Provider {
	return watchers.Provider{Kind: "ollama", Model: "qwen3:8b", BaseURL: srv.URL}
}

// add creates an enabled, recursive, fast watcher (cooldown at its 5 s
// minimum) and waits until it has taken its baseline.
func (e *env) add(def watchers.Definition) watchers.Definition {
	e.t.Helper()
	if def.Instructions == "" {
		def.Instructions = "Sort every new file into the folder Sorted/."
	}
	def.Enabled, def.Recursive = true, true
	if def.Responsiveness == "" {
		def.Responsiveness = "fast"
	}
	if def.Guards.CooldownSeconds == 0 {
		def.Guards.CooldownSeconds = 5
	}
	v, err := e.c.Add(e.ctx, api.AddRequest{Definition: def})
	if err != nil {
		e.t.Fatalf("adding watcher %s: %v", def.Name, err)
	}
	e.waitFor(def.Name+" to take its baseline", func() bool {
		st := e.state(def.Name)
		return st.Phase == watchers.PhaseIdle && st.BaselineRoot != ""
	})
	return v.Definition
}

func (e *env) state(name string) watchers.State {
	e.t.Helper()
	v, err := e.c.Get(e.ctx, name)
	if err != nil {
		e.t.Fatalf("getting %s: %v", name, err)
	}
	return v.State
}

// history returns the watcher's runs, newest first.
func (e *env) history(name string) []runner.RunView {
	e.t.Helper()
	raw, err := e.c.History(e.ctx, name)
	if err != nil {
		e.t.Fatalf("history of %s: %v", name, err)
	}
	var runs []runner.RunView
	if err := json.Unmarshal(raw, &runs); err != nil {
		e.t.Fatalf("history of %s: %v", name, err)
	}
	return runs
}

// ended returns the finished runs (with a run-start), newest first.
func (e *env) ended(name string) []runner.RunView {
	var out []runner.RunView
	for _, r := range e.history(name) {
		if r.Start != nil && r.End != nil {
			out = append(out, r)
		}
	}
	return out
}

// waitRuns waits until n runs of the watcher have ended and it is back in
// a resting phase, and returns the finished runs newest first.
func (e *env) waitRuns(name string, n int) []runner.RunView {
	e.t.Helper()
	var runs []runner.RunView
	e.waitFor(fmt.Sprintf("%d finished run(s) of %s", n, name), func() bool {
		runs = e.ended(name)
		if len(runs) < n {
			return false
		}
		switch st := e.state(name); st.Phase {
		case watchers.PhaseIdle, watchers.PhasePaused, watchers.PhaseError, watchers.PhaseExhausted:
			return true
		case watchers.PhaseDebouncing:
			return strings.Contains(st.Reason, "retrying in") // a failed run waits to be retried
		}
		return false
	})
	if len(runs) != n {
		e.t.Fatalf("%s: want %d finished run(s), got %d: %s", name, n, len(runs), describe(runs))
	}
	return runs
}

// quiet checks that the watcher starts no new run: once its debounce has
// looked at what changed it settles idle, and for a few more debounce
// windows it stays idle with its run counter at runs. A run held back by
// the cooldown shows as a "cooling down" reason and fails the check too,
// so the check does not depend on the cooldown being longer than it.
func (e *env) quiet(name string, runs int) {
	e.t.Helper()
	woke := func(st watchers.State) bool {
		return st.Runs != runs || st.Phase == watchers.PhaseProcessing || st.Phase == watchers.PhaseSettling ||
			strings.Contains(st.Reason, "cooling down")
	}
	e.waitFor(name+" to be idle", func() bool {
		st := e.state(name)
		if woke(st) {
			e.t.Fatalf("%s woke up: phase %s (%s), %d run(s), want %d", name, st.Phase, st.Reason, st.Runs, runs)
		}
		return st.Phase == watchers.PhaseIdle
	})
	deadline := time.Now().Add(5 * watchers.Tiers["fast"])
	for time.Now().Before(deadline) {
		if st := e.state(name); woke(st) || st.Phase != watchers.PhaseIdle {
			e.t.Fatalf("%s woke up: phase %s (%s), %d run(s), want %d", name, st.Phase, st.Reason, st.Runs, runs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (e *env) waitFor(what string, cond func() bool) {
	e.t.Helper()
	waitFor(e.t, what, cond)
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", waitLimit, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func describe(runs []runner.RunView) string {
	var b strings.Builder
	for _, r := range runs {
		fmt.Fprintf(&b, "\n  run %s", r.ID)
		if r.End != nil {
			fmt.Fprintf(&b, " outcome=%s reason=%q passes=%d", r.End.Outcome, r.End.Reason, r.End.Passes)
		}
		for _, rec := range r.Records {
			switch rec.Type {
			case dispatch.RecTool:
				fmt.Fprintf(&b, "\n    tool %s %s error=%v: %.120s", rec.Name, rec.Args, rec.Error, rec.Result)
			case dispatch.RecMessage:
				fmt.Fprintf(&b, "\n    %s: %.120q", rec.Role, rec.Content)
			}
		}
	}
	return b.String()
}

// toolRecords returns the tool records of a run.
func toolRecords(r runner.RunView) []dispatch.Record {
	var out []dispatch.Record
	for _, rec := range r.Records {
		if rec.Type == dispatch.RecTool {
			out = append(out, rec)
		}
	}
	return out
}

// firstTurns are the requests that open a pass: their last message is the
// user prompt, not a tool result.
func firstTurns(srv *modeltest.Server) []modeltest.Request {
	var out []modeltest.Request
	for _, r := range srv.Requests() {
		if r.Last().Role == "user" {
			out = append(out, r)
		}
	}
	return out
}

var listedRE = regexp.MustCompile("(?m)^- `([^`]+)`( \\(removed\\))?$")

// listed returns the changed paths a prompt lists (removed ones left out
// unless withRemoved).
func listed(prompt string, withRemoved bool) []string {
	var out []string
	for _, m := range listedRE.FindAllStringSubmatch(prompt, -1) {
		if m[2] != "" && !withRemoved {
			continue
		}
		out = append(out, m[1])
	}
	return out
}

// sorter is a model that moves every added file its prompt lists into
// Sorted/ with one round of file_move calls, then says it is done.
func sorter(r modeltest.Request) modeltest.Response {
	if r.Last().Role != "user" {
		return modeltest.Text("Sorted the new files.")
	}
	var calls []modeltest.ToolCall
	for _, p := range listed(r.FirstUser(), false) {
		if strings.HasPrefix(p, "Sorted/") || p == "Sorted" {
			continue
		}
		args, _ := json.Marshal(map[string]string{"from": p, "to": "Sorted/" + p})
		calls = append(calls, modeltest.Call("file_move", string(args)))
	}
	if len(calls) == 0 {
		return modeltest.Text("Everything is in order.")
	}
	return modeltest.Calls(calls...)
}

// rounds answers the first turn of each pass with the next batch of tool
// calls, and every other request with text.
func rounds(batches ...[]modeltest.ToolCall) modeltest.Script {
	var mu sync.Mutex
	n := 0
	return func(r modeltest.Request) modeltest.Response {
		mu.Lock()
		defer mu.Unlock()
		if r.Last().Role != "user" || n >= len(batches) {
			return modeltest.Text("Done.")
		}
		n++
		return modeltest.Calls(batches[n-1]...)
	}
}

func call(name string, args map[string]any) modeltest.ToolCall {
	b, _ := json.Marshal(args)
	return modeltest.Call(name, string(b))
}

func writeFile(t testing.TB, p, s string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// entry is what a snapshot keeps of one path.
type entry struct {
	Kind string // file, dir, symlink
	Mode fs.FileMode
	Hash string // content hash of a file, target of a symlink
}

// snapshot maps every path under root (relative, slash-separated) to its
// kind, permission bits and content hash. skip, when set, leaves out a
// relative path and everything under it.
func snapshot(t testing.TB, root string, skip ...string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		for _, s := range skip {
			if rel == s && d.IsDir() {
				return filepath.SkipDir
			}
			if rel == s {
				return nil // SkipDir on a file would skip the rest of its folder
			}
		}
		if rel == "." {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := entry{Mode: fi.Mode().Perm()}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			e.Kind = "symlink"
			e.Hash, err = os.Readlink(p)
		case fi.IsDir():
			e.Kind = "dir"
		default:
			e.Kind = "file"
			e.Hash, err = hashFile(p)
		}
		out[rel] = e
		return err
	})
	if err != nil {
		t.Fatalf("snapshot of %s: %v", root, err)
	}
	return out
}

func hashFile(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sameSnapshot reports the differences between two snapshots.
func diffSnapshots(before, after map[string]entry) []string {
	var out []string
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			out = append(out, "missing: "+p)
		case a != b:
			out = append(out, fmt.Sprintf("changed: %s (%+v -> %+v)", p, b, a))
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, "new: "+p)
		}
	}
	return out
}

func assertSame(t testing.TB, what string, before, after map[string]entry) {
	t.Helper()
	if d := diffSnapshots(before, after); len(d) > 0 {
		t.Fatalf("%s differs:\n  %s", what, strings.Join(d, "\n  "))
	}
}
