package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tend-agent/tend/dispatch/modeltest"
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

// fillTree makes about n entries under dir: folders of up to 1,000 small
// files each.
func fillTree(b *testing.B, dir string, n int) {
	b.Helper()
	for made, d := 0, 0; made < n; d++ {
		sub := filepath.Join(dir, fmt.Sprintf("d%04d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		made++
		for f := 0; f < 999 && made < n; f++ {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%04d.txt", f)), []byte("x"), 0o644); err != nil {
				b.Fatal(err)
			}
			made++
		}
	}
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
// lets the debounce window end, and the stand-in answers with text only.
func BenchmarkDispatchOverhead(b *testing.B) {
	n := benchEntries(b)
	parent := b.TempDir()
	dir, stage := filepath.Join(parent, "folder"), filepath.Join(parent, "stage")
	fillTree(b, dir, n)
	if err := os.MkdirAll(stage, 0o755); err != nil {
		b.Fatal(err)
	}
	h := home.Home{Dir: filepath.Join(parent, "home")}
	if err := h.Ensure(); err != nil {
		b.Fatal(err)
	}

	arrived := make(chan time.Time, 1)
	var answered atomic.Int64 // unix ns of the last answer
	srv := modeltest.NewOllama(b, func(r modeltest.Request) modeltest.Response {
		arrived <- time.Now()
		answered.Store(time.Now().UnixNano())
		return modeltest.Text("Everything is in order.")
	})
	fc := clock.NewFake(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	log := slog.New(slog.DiscardHandler)
	r := runner.New(runner.Config{Home: h, Trash: sandbox.FreedesktopTrash{Dir: filepath.Join(parent, "Trash")},
		Clock: fc, Keys: staticKeys{}, Log: log})
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
		report(toFinish, "pass-end-to-finish")
		report(inFinish, "finish")
		report(afterFinish, "finish-to-idle")
	}
	b.ReportMetric(float64(n), "entries")
}
