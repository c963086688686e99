package content

import (
	"bufio"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

// TestPDFQualityAgainstPoppler compares the words the pure-Go reader
// recovers with those of poppler's pdftotext (the anchor), on the PDFs
// listed one per line in the file named by TEND_BENCH_PDF_LIST
// (scripts/bench_pdf.sh makes it from Debian documentation packages).
// It reports, per file and overall, the share of pdftotext's words the Go
// reader also found (a multiset intersection), and time per page.
func TestPDFQualityAgainstPoppler(t *testing.T) {
	list := os.Getenv("TEND_BENCH_PDF_LIST")
	if list == "" {
		t.Skip("set TEND_BENCH_PDF_LIST to a file of PDF paths (see scripts/bench_pdf.sh)")
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatal("pdftotext (poppler-utils) is needed as the anchor")
	}
	lf, err := os.Open(list)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	var paths []string
	for sc := bufio.NewScanner(lf); sc.Scan(); {
		if p := strings.TrimSpace(sc.Text()); p != "" {
			paths = append(paths, p)
		}
	}
	var (
		matched, anchorWords int
		goTime, popTime      time.Duration
		pages                int
		ratios               []float64
		childMB              []float64 // ms through the child, files of 0.5-2 MB
	)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(p)
		start := time.Now()
		var r Result
		func() {
			defer func() {
				if x := recover(); x != nil {
					r.Failed = "panic"
				}
			}()
			r.MIME = "application/pdf"
			if err := readPDFGo(f, int64(len(b)), &r); err != nil {
				r.Failed = err.Error()
			}
		}()
		d := time.Since(start)
		f.Close()
		start = time.Now()
		anchor, err := exec.Command("pdftotext", "-q", "-enc", "UTF-8", p, "-").Output()
		pd := time.Since(start)
		if err != nil {
			t.Logf("%s: pdftotext failed (%v); skipped", p, err)
			continue
		}
		if len(b) >= 512<<10 && len(b) <= 2<<20 {
			// The daemon's path: a child process, pdftotext when installed.
			cf, _ := os.Open(p)
			start = time.Now()
			cr := Run(t.Context(), cf, int64(len(b)), DefaultLimits)
			childMB = append(childMB, float64(time.Since(start).Microseconds())/1000)
			cf.Close()
			if cr.Failed != "" {
				t.Logf("%s: through the child: %s", p, cr.Failed)
			}
		}
		n, _ := strconv.Atoi(r.Get("pages"))
		m, a := wordOverlap(r.Text, string(anchor))
		ratio := 1.0
		if a > 0 {
			ratio = float64(m) / float64(a)
		}
		ratios = append(ratios, ratio)
		matched += m
		anchorWords += a
		goTime += d
		popTime += pd
		pages += n
		t.Logf("%-70s pages %4d  words %6d  ratio %.3f  go %6.1f ms/page  pdftotext %6.1f ms/page %s",
			p, n, a, ratio, perPage(d, n), perPage(pd, n), r.Failed)
	}
	sort.Float64s(ratios)
	if len(ratios) == 0 {
		t.Fatal("no PDF was compared")
	}
	t.Logf("SUMMARY files %d, pages %d: overall word ratio %.3f (median %.3f, worst %.3f); go %.1f ms/page, pdftotext %.1f ms/page",
		len(ratios), pages, float64(matched)/float64(anchorWords), ratios[len(ratios)/2], ratios[0], perPage(goTime, pages), perPage(popTime, pages))
	if len(childMB) > 0 {
		sort.Float64s(childMB)
		t.Logf("SUMMARY %d PDFs of 0.5-2 MB through the extraction child (as the daemon reads them): median %.0f ms, worst %.0f ms",
			len(childMB), childMB[len(childMB)/2], childMB[len(childMB)-1])
	}
}

func perPage(d time.Duration, pages int) float64 {
	if pages == 0 {
		return 0
	}
	return float64(d.Microseconds()) / 1000 / float64(pages)
}

// wordOverlap counts the anchor's words (lowercased runs of letters and
// digits) that got also has, each as often as got has it.
func wordOverlap(got, anchor string) (matched, total int) {
	have := map[string]int{}
	for _, w := range words(got) {
		have[w]++
	}
	for _, w := range words(anchor) {
		total++
		if have[w] > 0 {
			have[w]--
			matched++
		}
	}
	return matched, total
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
