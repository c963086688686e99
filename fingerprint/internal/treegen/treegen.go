// Package treegen generates realistic folder trees for the fingerprint
// benchmarks: nested directories of about 30 entries each, varied names,
// sizes and modification times.
package treegen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

var (
	stems = []string{"report", "IMG", "notes", "invoice", "draft", "photo", "scan", "budget", "README", "main", "index", "summary", "letter", "backup", "data"}
	exts  = []string{".pdf", ".jpg", ".md", ".txt", ".go", ".png", ".csv", ".docx", ".json", ".html", ""}
	dirs  = []string{"src", "docs", "Invoices", "2024", "2025", "archive", "Projects", "photos", "misc", "notes", "build", "assets"}
)

// Generate creates about entries files and directories below root (which
// must exist) and returns how many of each it made. The same seed gives the
// same tree.
func Generate(root string, entries int, seed uint64) (files, ndirs int, err error) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	queue := []string{root}
	made := 0
	for len(queue) > 0 && made < entries {
		dir := queue[0]
		queue = queue[1:]
		nsub := 2 + r.IntN(3)
		nfiles := 24 + r.IntN(10)
		for i := 0; i < nsub && made < entries; i++ {
			p := filepath.Join(dir, fmt.Sprintf("%s-%d", dirs[r.IntN(len(dirs))], i))
			if err := os.Mkdir(p, 0o755); err != nil {
				return files, ndirs, fmt.Errorf("generating tree: %w", err)
			}
			queue = append(queue, p)
			made++
			ndirs++
		}
		for i := 0; i < nfiles && made < entries; i++ {
			name := fmt.Sprintf("%s_%04d%s", stems[r.IntN(len(stems))], r.IntN(10000), exts[r.IntN(len(exts))])
			p := filepath.Join(dir, fmt.Sprintf("%02d-%s", i, name))
			f, err := os.Create(p)
			if err != nil {
				return files, ndirs, fmt.Errorf("generating tree: %w", err)
			}
			if err := f.Truncate(int64(r.IntN(200000))); err != nil {
				f.Close()
				return files, ndirs, fmt.Errorf("generating tree: %w", err)
			}
			if err := f.Close(); err != nil {
				return files, ndirs, fmt.Errorf("generating tree: %w", err)
			}
			mt := base.Add(time.Duration(r.Int64N(int64(300 * 24 * time.Hour))))
			if err := os.Chtimes(p, mt, mt); err != nil {
				return files, ndirs, fmt.Errorf("generating tree: %w", err)
			}
			made++
			files++
		}
	}
	return files, ndirs, nil
}
