package fingerprint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tend-agent/tend/fingerprint/internal/treegen"
)

// Benchmarks run on a generated tree of TEND_BENCH_ENTRIES entries (default
// 20000), or on the existing folder TEND_BENCH_DIR (BenchmarkUpdateOneFile
// changes the mtime of one file in it).

var benchDirs struct {
	sync.Mutex
	dir  string
	temp string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDirs.temp != "" {
		_ = os.RemoveAll(benchDirs.temp)
	}
	os.Exit(code)
}

func benchRoot(b *testing.B) string {
	b.Helper()
	benchDirs.Lock()
	defer benchDirs.Unlock()
	if benchDirs.dir != "" {
		return benchDirs.dir
	}
	if d := os.Getenv("TEND_BENCH_DIR"); d != "" {
		benchDirs.dir = d
		return d
	}
	n := 20000
	if s := os.Getenv("TEND_BENCH_ENTRIES"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			b.Fatalf("TEND_BENCH_ENTRIES=%q is not a positive number", s)
		}
		n = v
	}
	tmp, err := os.MkdirTemp("", "tend-bench-")
	if err != nil {
		b.Fatal(err)
	}
	benchDirs.temp = tmp
	root := filepath.Join(tmp, "tree")
	if err := os.Mkdir(root, 0o755); err != nil {
		b.Fatal(err)
	}
	if _, _, err := treegen.Generate(root, n, 1); err != nil {
		b.Fatal(err)
	}
	benchDirs.dir = root
	return root
}

// heapOf measures the live heap a function's result keeps.
func heapOf(f func() any) (uint64, any) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return after.HeapAlloc - before.HeapAlloc, v
}

func BenchmarkBuild(b *testing.B) {
	root := benchRoot(b)
	ctx := context.Background()
	heap, v := heapOf(func() any {
		t, err := Build(ctx, root, Options{})
		if err != nil {
			b.Fatal(err)
		}
		return t
	})
	t := v.(*Tree)
	entries := t.Len()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Build(ctx, root, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(entries), "entries")
	b.ReportMetric(float64(heap)/float64(entries), "heapB/entry")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(entries), "ns/entry")
}

// deepestFile finds a file at the greatest depth, the worst case for
// path copying.
func deepestFile(t *Tree) string {
	best, depth := "", -1
	t.Walk(func(e Entry) bool {
		if e.Kind == KindFile {
			if d := len(filepath.SplitList(e.Path)) + countSlashes(e.Path); d > depth {
				best, depth = e.Path, d
			}
		}
		return true
	})
	return best
}

func countSlashes(s string) int {
	n := 0
	for i := range len(s) {
		if s[i] == '/' {
			n++
		}
	}
	return n
}

func BenchmarkUpdateOneFile(b *testing.B) {
	root := benchRoot(b)
	t, err := Build(context.Background(), root, Options{})
	if err != nil {
		b.Fatal(err)
	}
	rel := deepestFile(t)
	if rel == "" {
		b.Skip("no file in the benchmark tree")
	}
	full := filepath.Join(root, rel)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	i := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		i++
		mt := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(full, mt, mt); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		nt, err := t.Update(rel)
		if err != nil {
			b.Fatal(err)
		}
		if nt.RootHash() == t.RootHash() {
			b.Fatal("the update did not change the root hash")
		}
		t = nt
	}
	b.ReportMetric(float64(countSlashes(rel)+1), "depth")
}

func BenchmarkDiff(b *testing.B) {
	root := benchRoot(b)
	ctx := context.Background()
	old, err := Build(ctx, root, Options{})
	if err != nil {
		b.Fatal(err)
	}
	rel := deepestFile(old)
	full := filepath.Join(root, rel)
	mt := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(full, mt, mt); err != nil {
		b.Fatal(err)
	}
	// Two independent builds: no shared nodes, so only hashes let Diff skip.
	fresh, err := Build(ctx, root, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("one-change", func(b *testing.B) {
		for b.Loop() {
			if c := Diff(old, fresh); c.Len() != 1 {
				b.Fatalf("Diff found %d changes, want 1", c.Len())
			}
		}
	})
	b.Run("everything-added", func(b *testing.B) {
		for b.Loop() {
			if c := Diff(nil, fresh); c.Len() != fresh.Len() {
				b.Fatal(fmt.Sprint("Diff(nil) listed ", c.Len()))
			}
		}
	})
}

func BenchmarkSaveLoad(b *testing.B) {
	root := benchRoot(b)
	t, err := Build(context.Background(), root, Options{})
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "bench.tree")
	b.Run("save", func(b *testing.B) {
		for b.Loop() {
			if err := t.Save(file); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			if _, err := Load(file); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkUpdateMany folds 2000 changed files (a branch checkout) into a
// tree, one Update at a time and with UpdatePaths.
func BenchmarkUpdateMany(b *testing.B) {
	root := benchRoot(b)
	t, err := Build(context.Background(), root, Options{})
	if err != nil {
		b.Fatal(err)
	}
	var files []string
	t.Walk(func(e Entry) bool {
		if e.Kind == KindFile {
			files = append(files, e.Path)
		}
		return true
	})
	step := max(1, len(files)/2000)
	var changed []string
	mt := time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < len(files) && len(changed) < 2000; i += step {
		if err := os.Chtimes(filepath.Join(root, files[i]), mt, mt); err != nil {
			b.Fatal(err)
		}
		changed = append(changed, files[i])
	}
	b.Run("Update", func(b *testing.B) {
		for b.Loop() {
			cur := t
			for _, p := range changed {
				if cur, err = cur.Update(p); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(changed)), "paths")
	})
	b.Run("UpdatePaths", func(b *testing.B) {
		for b.Loop() {
			if _, err := t.UpdatePaths(changed); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(changed)), "paths")
	})
}
