//go:build linux

package events

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkInotifyStart measures watching a tree of 1,000 folders holding
// 10 files each (New returns once every folder is watched).
func BenchmarkInotifyStart(b *testing.B) {
	root := b.TempDir()
	for i := range 100 {
		for j := range 10 {
			d := filepath.Join(root, fmt.Sprintf("d%03d", i), fmt.Sprintf("e%d", j))
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
			for k := range 10 {
				if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d", k)), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		src, err := New(ctx, Options{Root: root, Recursive: true})
		if err != nil {
			b.Fatal(err)
		}
		if src.Mode() != "inotify" {
			b.Fatalf("mode %s: %s", src.Mode(), src.Reason())
		}
		_ = src.Close()
	}
	b.ReportMetric(1101, "watches/op")
}
