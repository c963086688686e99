package e2e

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tend-agent/tend/content"
	"github.com/tend-agent/tend/internal/clock"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/runner"
	"github.com/tend-agent/tend/sandbox"
	"github.com/tend-agent/tend/watchers"
)

// benchEntries is the size of the benchmark folder: TEND_BENCH_ENTRIES,
// default 20,000 (the target figure is for 150,000).
func benchEntries(b *testing.B) int {
	n := 20000
	if s := os.Getenv("TEND_BENCH_ENTRIES"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 10 {
			b.Fatalf("TEND_BENCH_ENTRIES=%q: want a number of entries of at least 10", s)
		}
		n = v
	}
	return n
}

// benchTrees are the benchmark folders by size, made once per process
// (the benchmark function runs several times) and removed by TestMain.
var benchTrees = struct {
	sync.Mutex
	dirs map[int]string
}{dirs: map[int]string{}}

func TestMain(m *testing.M) {
	content.RunChildIfAsked() // the daemon's extraction child is this binary
	code := m.Run()
	benchTrees.Lock()
	for _, d := range benchTrees.dirs {
		os.RemoveAll(d)
	}
	benchTrees.Unlock()
	os.Exit(code)
}

// benchTree returns a folder of about n entries: folders of up to 1,000
// small files each, written by a few goroutines at once.
func benchTree(b *testing.B, n int) string {
	b.Helper()
	benchTrees.Lock()
	defer benchTrees.Unlock()
	if d, ok := benchTrees.dirs[n]; ok {
		return d
	}
	root, err := os.MkdirTemp("", "tend-bench-tree-")
	if err != nil {
		b.Fatal(err)
	}
	benchTrees.dirs[n] = root
	var (
		wg    sync.WaitGroup
		sem   = make(chan struct{}, 8)
		errMu sync.Mutex
		first error
	)
	for made, d := 0, 0; made < n; d++ {
		files := min(999, n-made-1)
		made += 1 + files
		sub := filepath.Join(root, fmt.Sprintf("d%04d", d))
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			err := os.Mkdir(sub, 0o755)
			for f := 0; f < files && err == nil; f++ {
				err = os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%04d.txt", f)), []byte("x"), 0o644)
			}
			if err != nil {
				errMu.Lock()
				first = cmp.Or(first, err)
				errMu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first != nil {
		b.Fatalf("making the benchmark folder: %v", first)
	}
	return root
}

type phaseAt struct {
	phase watchers.Phase
	at    time.Time
}

// BenchmarkDispatchOverhead measures tend's own work around one model
// call, on a folder of TEND_BENCH_ENTRIES entries with the real kernel
// watcher, engine, runner, sandbox and Ollama client:
//
//   - to-model: from the end of the debounce window (the moment the fake
//     clock passes it) to the arrival of the chat request at the stand-in;
//   - to-idle: from the stand-in's last answer to the watcher publishing
//     "idle" again, with settleSeconds 0.
//
// Each iteration renames one new file into the folder (one kernel event),
// lets the debounce window end, and the stand-in answers with text only,
// streamed as a real server does: the first chunk at once, the final one
// (the "last answer") after a short generation time.
func BenchmarkDispatchOverhead(b *testing.B) {
	n := benchEntries(b)
	dir := benchTree(b, n)
	parent := b.TempDir()
	stage := filepath.Join(parent, "stage") // same file system as dir: /tmp
	if err := os.MkdirAll(stage, 0o755); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { removeNew(dir) })
	h := home.Home{Dir: filepath.Join(parent, "home")}
	if err := h.Ensure(); err != nil {
		b.Fatal(err)
	}

	arrived := make(chan time.Time, 1)
	var answered atomic.Int64 // unix ns of the last answer
	srv := streamingOllama(b, arrived, &answered)
	fc := clock.NewFake(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	log := slog.New(slog.DiscardHandler)
	r := runner.New(runner.Config{Home: h, Trash: sandbox.FreedesktopTrash{Dir: filepath.Join(parent, "Trash")},
		Clock: fc, Keys: staticKeys{}, Log: log, NewProvider: timedNewProvider})
	tr := &timedRunner{Runner: r}
	def := &watchers.Definition{
		ID: "00000000-0000-4000-8000-000000000001", Name: "bench", Path: dir, Enabled: true, Recursive: true,
		Instructions: "Keep the folder tidy.", Responsiveness: "fast", SettleSeconds: 0, MaxIterations: 5,
		Provider: watchers.Provider{Kind: "ollama", Model: "qwen3:8b", BaseURL: srv.URL},
	}
	phases := make(chan phaseAt, 4096)
	var runs atomic.Int64
	eng := watchers.NewEngine(watchers.EngineConfig{
		Def: def, StateDir: h.State(), Clock: fc, Log: log, Runner: tr, Slots: make(chan struct{}, 2),
		Publish:  func(st watchers.State) { phases <- phaseAt{st.Phase, time.Now()} },
		NewRunID: func() string { return fmt.Sprintf("run-%06d", runs.Add(1)) },
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { eng.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	until := func(want watchers.Phase) time.Time {
		b.Helper()
		deadline := time.After(60 * time.Second)
		for {
			select {
			case p := <-phases:
				if p.phase == watchers.PhaseError {
					b.Fatalf("watcher in error")
				}
				if p.phase == want {
					return p.at
				}
			case <-deadline:
				b.Fatalf("timed out waiting for phase %s", want)
			}
		}
	}
	until(watchers.PhaseIdle)
	window, _ := def.Tier()

	var chatRet []time.Duration
	var toModel, toIdle, inPass, toFinish, inFinish, afterFinish []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		fc.Advance(61 * time.Second) // past the cooldown and the burst window
		src := filepath.Join(stage, fmt.Sprintf("new-%d.txt", i))
		if err := os.WriteFile(src, []byte("new"), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(src, filepath.Join(dir, "d0000", fmt.Sprintf("new-%d.txt", i))); err != nil {
			b.Fatal(err)
		}
		until(watchers.PhaseDebouncing)
		waitFor(b, "the debounce timer", func() bool { return fc.Pending() > 0 })
		b.StartTimer()
		end := time.Now()
		fc.Advance(window)
		first := <-arrived
		idle := until(watchers.PhaseIdle)
		toModel = append(toModel, first.Sub(end))
		ans := time.Unix(0, answered.Load())
		toIdle = append(toIdle, idle.Sub(ans))
		pe, fs, fe := tr.times()
		inPass = append(inPass, pe.Sub(ans))
		chatRet = append(chatRet, time.Unix(0, chatReturned.Load()).Sub(ans))
		toFinish = append(toFinish, fs.Sub(pe))
		inFinish = append(inFinish, fe.Sub(fs))
		afterFinish = append(afterFinish, idle.Sub(fe))
	}
	b.StopTimer()
	report := func(ds []time.Duration, name string) {
		slices.Sort(ds)
		var sum time.Duration
		for _, d := range ds {
			sum += d
		}
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		b.ReportMetric(ms(sum/time.Duration(len(ds))), name+"-mean-ms")
		b.ReportMetric(ms(ds[len(ds)/2]), name+"-p50-ms")
		b.ReportMetric(ms(ds[len(ds)-1]), name+"-max-ms")
	}
	report(toModel, "to-model")
	report(toIdle, "to-idle")
	if os.Getenv("TEND_BENCH_SPLIT") != "" {
		report(inPass, "answer-to-pass-end")
		report(chatRet, "answer-to-chat-return")
		report(toFinish, "pass-end-to-finish")
		report(inFinish, "finish")
		report(afterFinish, "finish-to-idle")
	}
	b.ReportMetric(float64(n), "entries")
}

// generation is how long the benchmark's stand-in "generates" between its
// first streamed chunk and its final one.
const generation = 5 * time.Millisecond

// streamingOllama is a minimal stand-in of Ollama's POST /api/chat for the
// benchmark. Unlike modeltest's, which decides and sends a whole answer at
// once, it streams like a real server: headers and the first NDJSON chunk
// as soon as the request is in, the final chunk (done: true) after
// generation. That keeps the client library's per-response set-up (the
// Ollama client allocates an 8 MB line buffer when the headers arrive)
// where it falls with a real model: during generation, not after the last
// answer. It notes when each request body has arrived and when the last
// answer is sent.
func streamingOllama(b *testing.B, arrived chan<- time.Time, answered *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model string `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		arrived <- time.Now()
		w.Header().Set("Content-Type", "application/x-ndjson")
		enc := json.NewEncoder(w)
		flush := w.(http.Flusher).Flush
		at := "2026-01-01T00:00:00Z"
		enc.Encode(map[string]any{"model": req.Model, "created_at": at, "done": false,
			"message": map[string]any{"role": "assistant", "content": "Everything is in order."}})
		flush()
		time.Sleep(generation)
		answered.Store(time.Now().UnixNano())
		enc.Encode(map[string]any{"model": req.Model, "created_at": at, "done": true, "done_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": ""}, "prompt_eval_count": 100, "eval_count": 5})
		flush()
	}))
	b.Cleanup(srv.Close)
	return srv
}

// removeNew takes the files an iteration added out of the shared folder.
func removeNew(dir string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "d0000", "new-*.txt"))
	for _, m := range matches {
		os.Remove(m)
	}
}
