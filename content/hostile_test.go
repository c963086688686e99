package content

import (
	"archive/zip"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/content/contenttest"
)

// hostile runs one file through the child as the daemon does and checks
// the answer comes in time, as one line when it failed.
func hostile(t *testing.T, f *os.File, size int64, lim Limits) Result {
	t.Helper()
	start := time.Now()
	r := Run(t.Context(), f, size, lim)
	if d := time.Since(start); d > lim.Timeout+2*time.Second {
		t.Fatalf("the answer took %s, past the %s limit", d, lim.Timeout)
	}
	if strings.Contains(r.Failed, "\n") {
		t.Fatalf("the failure is not one line: %q", r.Failed)
	}
	return r
}

// A zip bomb: 200 MB of zeros squeezed into a small archive, plus 20,000
// entries. The listing shows sizes, decompresses nothing, stops at 200.
func TestZipBombIsListedNotUnpacked(t *testing.T) {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	fw, _ := w.Create("bomb.bin")
	zero := make([]byte, 1<<20)
	for range 200 {
		fw.Write(zero)
	}
	for i := range 20000 {
		w.CreateHeader(&zip.FileHeader{Name: "many/" + strings.Repeat("n", i%50), Method: zip.Store})
	}
	w.Close()
	f := writeTemp(t, b.Bytes())
	r := hostile(t, f, int64(b.Len()), DefaultLimits)
	if r.Failed != "" || !strings.Contains(r.Text, "bomb.bin (200.0 MiB)") || !strings.Contains(r.Text, "more entries not listed") {
		t.Fatalf("%+v", r)
	}
	wantField(t, r, "entries", "20001")
}

// A PDF whose page tree is its own kid ends at the walk's bounds.
func TestPDFReferenceLoop(t *testing.T) {
	t.Setenv("TEND_CONTENT_NO_PDFTOTEXT", "1")
	b := contenttest.LoopPDF()
	r := hostile(t, writeTemp(t, b), int64(len(b)), DefaultLimits)
	if r.MIME != "application/pdf" {
		t.Fatalf("%+v", r)
	}
	wantField(t, r, "pages", "0")
}

// A JPEG cut off inside its header says it is damaged.
func TestTruncatedJPEG(t *testing.T) {
	b := contenttest.JPEG(32, 32, contenttest.EXIF{DateTimeOriginal: "2020:01:01 00:00:00"})
	b = b[:len(b)*1/10]
	r := hostile(t, writeTemp(t, b), int64(len(b)), DefaultLimits)
	if r.MIME != "image/jpeg" || r.Failed == "" {
		t.Fatalf("%+v", r)
	}
}

// A 1 GB sparse file of zeros is typed and sized without being read.
func TestHugeSparseFile(t *testing.T) {
	f := writeTemp(t, nil)
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	r := hostile(t, f, 1<<30, DefaultLimits)
	if r.Size != 1<<30 || r.Text != "" {
		t.Fatalf("%+v", r)
	}
}

// A reader that needs more memory than allowed, or more time, is stopped
// with one line; the test hooks make the child misbehave on purpose.
func TestChildLimits(t *testing.T) {
	f := writeTemp(t, []byte("%PDF-1.4\n"))
	t.Run("memory", func(t *testing.T) {
		t.Setenv(envMisbehave, "memory")
		r := hostile(t, f, 9, Limits{Timeout: 5 * time.Second, Memory: 256 << 20})
		if !strings.Contains(r.Failed, "more than 256 MiB of memory") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("time", func(t *testing.T) {
		t.Setenv(envMisbehave, "hang")
		r := hostile(t, f, 9, Limits{Timeout: 500 * time.Millisecond, Memory: 256 << 20})
		if !strings.Contains(r.Failed, "took longer than 500ms") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("output", func(t *testing.T) {
		t.Setenv(envMisbehave, "flood")
		r := hostile(t, f, 9, Limits{Timeout: 5 * time.Second, Memory: 256 << 20})
		if !strings.Contains(r.Failed, "more output than allowed") {
			t.Fatalf("%+v", r)
		}
	})
}

// No more than cap(slots) children run at once: while twice that many
// readers hang, this process never has more children than that.
func TestChildrenRunAFewAtATime(t *testing.T) {
	t.Setenv(envMisbehave, "hang")
	f := writeTemp(t, []byte("x"))
	lim := Limits{Timeout: 400 * time.Millisecond, Memory: 256 << 20}
	n := 2 * cap(slots)
	done := make(chan Result, n)
	for range n {
		go func() { done <- Run(t.Context(), f, 1, lim) }()
	}
	most := 0
	for got := 0; got < n; {
		select {
		case r := <-done:
			got++
			if !strings.Contains(r.Failed, "took longer") {
				t.Fatalf("%+v", r)
			}
		case <-time.After(5 * time.Millisecond):
			most = max(most, children(t))
		}
	}
	if most > cap(slots) {
		t.Fatalf("%d extraction children ran at once, want at most %d", most, cap(slots))
	}
	if most == 0 {
		t.Fatal("never saw a child running")
	}
}

// children counts the live processes whose parent is this one.
func children(t *testing.T) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	me := "PPid:\t" + strconv.Itoa(os.Getpid()) + "\n"
	n := 0
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err == nil && strings.Contains(string(b), me) && !strings.Contains(string(b), "State:\tZ") {
			n++
		}
	}
	return n
}
