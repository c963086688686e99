package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/watchers"
)

// soakSorter is a sorting model that also pages through an overflow with
// changes_list, and takes a while to answer (so files land while it
// works). It records every path it was told about.
type soakSorter struct {
	delay time.Duration
	mu    sync.Mutex
	told  map[string]int
}

func (s *soakSorter) note(paths []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range paths {
		s.told[p]++
	}
}

func (s *soakSorter) script(r modeltest.Request) modeltest.Response {
	time.Sleep(s.delay)
	last := r.Last()
	var todo []string
	switch {
	case last.Role == "user":
		todo = listed(last.Content, false)
		s.note(listed(last.Content, true))
		if strings.Contains(last.Content, "call changes_list") {
			return modeltest.Calls(modeltest.Call("changes_list", `{"offset":20}`))
		}
	case last.Role == "tool" && strings.HasPrefix(last.Content, "Changed paths"):
		s.note(listedAny(last.Content).all)
		if m := nextOffset(last.Content); m >= 0 {
			return modeltest.Calls(modeltest.Call("changes_list", fmt.Sprintf(`{"offset":%d}`, m)))
		}
		// The whole list is in: move what the prompt and every page named.
		todo = listed(r.FirstUser(), false)
		for _, m := range r.Messages {
			if m.Role == "tool" && strings.HasPrefix(m.Content, "Changed paths") {
				todo = append(todo, listedAny(m.Content).added...)
			}
		}
	default:
		return modeltest.Text("Sorted the new files.")
	}
	var calls []modeltest.ToolCall
	for _, p := range todo {
		if strings.HasPrefix(p, "Sorted") {
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

type listing struct{ all, added []string }

func listedAny(s string) listing {
	var l listing
	for _, line := range strings.Split(s, "\n") {
		if m := listedRE.FindStringSubmatch(line); m != nil {
			l.all = append(l.all, m[1])
			if m[2] == "" {
				l.added = append(l.added, m[1])
			}
		}
	}
	return l
}

func nextOffset(s string) int {
	i := strings.Index(s, "with offset ")
	if i < 0 {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.Fields(s[i+len("with offset "):])[0], "."))
	if err != nil {
		return -1
	}
	return n
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

// TestSoakTrickleEveryFileOnce drops files into a sorting watcher at a
// steady rate while the model is slow, with few passes allowed per run,
// then a storm of 300 at once. Every file must reach the model exactly once
// and end up sorted; file descriptors and goroutines stay flat.
// TEND_SOAK=8m runs it for minutes at one file a second.
func TestSoakTrickleEveryFileOnce(t *testing.T) {
	t.Parallel()
	dur, every := 12*time.Second, 100*time.Millisecond
	if v := os.Getenv("TEND_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("TEND_SOAK=%q: %v", v, err)
		}
		dur, every = d, time.Second
	}
	model := &soakSorter{delay: 150 * time.Millisecond, told: map[string]int{}}
	srv := modeltest.NewOllama(t, model.script)
	e := start(t, envOptions{})
	dir := t.TempDir()
	e.add(watchers.Definition{Name: "soak", Path: dir, Provider: ollama(srv), MaxIterations: 2, SettleSeconds: 0,
		Guards: watchers.Guards{BurstThreshold: 1000}})
	runtime.GC()
	fds0, gr0, heap0 := openFDs(), runtime.NumGoroutine(), heapInUse()

	var names []string
	deadline := time.Now().Add(dur)
	for i := 0; time.Now().Before(deadline); i++ {
		n := fmt.Sprintf("trickle-%04d.txt", i)
		writeFile(t, filepath.Join(dir, n), n, 0o644)
		names = append(names, n)
		time.Sleep(every)
	}
	for i := 0; i < 300; i++ {
		n := fmt.Sprintf("storm-%03d.txt", i)
		writeFile(t, filepath.Join(dir, n), n, 0o644)
		names = append(names, n)
	}
	limit := time.Now().Add(90 * time.Second)
	for {
		left := 0
		for _, n := range names {
			if _, err := os.Stat(filepath.Join(dir, "Sorted", n)); err != nil {
				left++
			}
		}
		if left == 0 {
			break
		}
		if time.Now().After(limit) {
			st := e.state("soak")
			t.Fatalf("%d of %d files never sorted; phase %s (%s), %d pending", left, len(names), st.Phase, st.Reason, st.PendingCount)
		}
		time.Sleep(200 * time.Millisecond)
	}
	model.mu.Lock()
	var twice []string
	for _, n := range names {
		if model.told[n] != 1 {
			twice = append(twice, fmt.Sprintf("%s×%d", n, model.told[n]))
		}
	}
	model.mu.Unlock()
	if len(twice) > 0 {
		slices.Sort(twice)
		t.Fatalf("%d of %d files were not presented exactly once: %v", len(twice), len(names), twice[:min(len(twice), 20)])
	}
	e.waitFor("the watcher idle", func() bool { return e.state("soak").Phase == watchers.PhaseIdle })
	runtime.GC()
	fds1, gr1, heap1 := openFDs(), runtime.NumGoroutine(), heapInUse()
	st := e.state("soak")
	t.Logf("%d files, %d runs; fds %d -> %d, goroutines %d -> %d, heap in use %.1f -> %.1f MiB (whole test process)",
		len(names), st.Runs, fds0, fds1, gr0, gr1, float64(heap0)/(1<<20), float64(heap1)/(1<<20))
	if fds1 > fds0+8 || gr1 > gr0+16 {
		t.Fatalf("resources grew: fds %d -> %d, goroutines %d -> %d", fds0, fds1, gr0, gr1)
	}
}
