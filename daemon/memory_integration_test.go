package daemon_test

import (
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/tend-agent/tend/watchers"
)

// TestDaemonHeapPerEntry reports the heap the daemon keeps for a watched
// tree. It runs only when TEND_BENCH_TREE names a folder (make one with
// `go run ./fingerprint/internal/treegen/cmd/treegen DIR 150000`);
// TEND_HEAP_PROFILE=FILE also writes a heap profile there.
func TestDaemonHeapPerEntry(t *testing.T) {
	tree := os.Getenv("TEND_BENCH_TREE")
	if tree == "" {
		t.Skip("set TEND_BENCH_TREE to a generated tree to measure the heap")
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h := startDaemon(t)
	h.add("bench", tree, nil)
	st := h.waitPhase("bench", watchers.PhaseIdle)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	n := st.Files + st.Dirs
	t.Logf("%d entries: heap in use %d B/entry (%d MiB); heap from the OS %d MiB",
		n, (after.HeapAlloc-before.HeapAlloc)/uint64(n), after.HeapAlloc>>20, after.HeapSys>>20)
	if p := os.Getenv("TEND_HEAP_PROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
	}
}
