//go:build unix

package sandbox

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/content"
	"github.com/tend-agent/tend/content/contenttest"
)

// The extraction child is this test binary started again.
func TestMain(m *testing.M) {
	content.RunChildIfAsked()
	os.Exit(m.Run())
}

func writeBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantAll(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// file_read of a document, a photo and an archive gives what they hold,
// with a first line saying what kind of file it is, chosen from the bytes:
// the PDF is named .txt and still read as a PDF.
func TestFileReadSeesInsideFiles(t *testing.T) {
	e := newEnv(t, false)
	writeBytes(t, filepath.Join(e.root, "scan.txt"), contenttest.PDF([]string{"Invoice 2023-117\nAmount 80 EUR"},
		map[string]string{"Title": "Invoice", "CreationDate": "D:20230405120000Z"}))
	writeBytes(t, filepath.Join(e.root, "contract.docx"), contenttest.DOCX([]string{"Lease agreement", "Signed 1 June 2022"}, "Lease", "", ""))
	writeBytes(t, filepath.Join(e.root, "img.jpg"), contenttest.JPEG(40, 30, contenttest.EXIF{DateTimeOriginal: "2018:08:09 10:11:12", Make: "Nikon", Model: "D750"}))
	writeBytes(t, filepath.Join(e.root, "a.zip"), contenttest.Zip([][2]string{{"x/readme.md", "hello"}}))

	out := e.mustCall("file_read", map[string]any{"path": "scan.txt"})
	wantAll(t, out, "scan.txt is a PDF document (application/pdf,", "pages: 1", "title: Invoice", "created: 2023-04-05T12:00:00Z", "--- page 1 ---", "Invoice 2023-117", "Amount 80 EUR")
	if !strings.HasPrefix(out, "scan.txt is a PDF document") {
		t.Errorf("the first line does not say what the file is:\n%s", out)
	}
	out = e.mustCall("file_read", map[string]any{"path": "contract.docx"})
	wantAll(t, out, "contract.docx is a Word document (DOCX)", "title: Lease", "Lease agreement\nSigned 1 June 2022")
	out = e.mustCall("file_read", map[string]any{"path": "img.jpg"})
	wantAll(t, out, "img.jpg is a JPEG image (image/jpeg,", "dimensions: 40 × 30 pixels", "date taken: 2018-08-09T10:11:12", "camera: Nikon D750", "cannot see pictures")
	out = e.mustCall("file_read", map[string]any{"path": "a.zip"})
	wantAll(t, out, "a.zip is a zip archive", "entries: 1", "x/readme.md (5 B)")
}

// Extracted text is cut at the same 15,000 characters as text files.
func TestFileReadCutsExtractedText(t *testing.T) {
	e := newEnv(t, false)
	var paras []string
	for i := range 2000 {
		paras = append(paras, "paragraph number "+strconv.Itoa(i))
	}
	writeBytes(t, filepath.Join(e.root, "long.docx"), contenttest.DOCX(paras, "", "", ""))
	out := e.mustCall("file_read", map[string]any{"path": "long.docx"})
	wantAll(t, out, "paragraph number 0\n", "[… cut: showed the first 15000 characters of the text read from this Word document (DOCX);", "use file_search with content true")
	if strings.Contains(out, "paragraph number 1999") {
		t.Fatal("the end of the text was shown")
	}
	body := out[strings.Index(out, "\n\n")+2 : strings.Index(out, "\n[… cut")]
	if n := len([]rune(body)); n != 15000 {
		t.Fatalf("showed %d characters, want 15000", n)
	}
}

// file_metadata adds the type and the key facts; plain text gets its type.
func TestFileMetadataAddsContentFacts(t *testing.T) {
	e := newEnv(t, false)
	writeBytes(t, filepath.Join(e.root, "r.pdf"), contenttest.PDF([]string{"one", "two", "three"}, map[string]string{"Author": "Ann"}))
	writeBytes(t, filepath.Join(e.root, "p.jpg"), contenttest.JPEG(8, 8, contenttest.EXIF{DateTimeOriginal: "2001:02:03 04:05:06"}))
	out := e.mustCall("file_metadata", map[string]any{"path": "r.pdf"})
	wantAll(t, out, "kind: file", "type: PDF document (application/pdf)", "pages: 3", "author: Ann")
	out = e.mustCall("file_metadata", map[string]any{"path": "p.jpg"})
	wantAll(t, out, "type: JPEG image (image/jpeg)", "date taken: 2001-02-03T04:05:06")
	writeBytes(t, filepath.Join(e.root, "b.md"), []byte("# notes\n"))
	out = e.mustCall("file_metadata", map[string]any{"path": "b.md"})
	wantAll(t, out, "type: text/plain")
}

// file_search with content true finds words inside documents too.
func TestFileSearchFindsTextInDocuments(t *testing.T) {
	e := newEnv(t, false)
	writeBytes(t, filepath.Join(e.root, "in/bill.pdf"), contenttest.PDF([]string{"Electricity bill", "Customer number 99812"}, nil))
	writeBytes(t, filepath.Join(e.root, "in/letter.docx"), contenttest.DOCX([]string{"Dear customer 99812,"}, "", "", ""))
	writeBytes(t, filepath.Join(e.root, "in/plain.txt"), []byte("nothing here\ncustomer 99812 again\n"))
	out := e.mustCall("file_search", map[string]any{"pattern": "99812", "path": "in", "content": true})
	wantAll(t, out, "in/bill.pdf:", "Customer number 99812", "in/letter.docx:1: Dear customer 99812,", "in/plain.txt:2: customer 99812 again")
}

// A file is extracted once per run: the second read comes from the cache,
// and a changed file is read again.
func TestExtractionCachedPerRun(t *testing.T) {
	e := newEnv(t, false)
	p := filepath.Join(e.root, "c.pdf")
	writeBytes(t, p, contenttest.PDF([]string{"first"}, nil))
	before := content.Started()
	e.mustCall("file_read", map[string]any{"path": "c.pdf"})
	e.mustCall("file_metadata", map[string]any{"path": "c.pdf"})
	e.mustCall("file_search", map[string]any{"pattern": "first", "content": true})
	if n := content.Started() - before; n != 1 {
		t.Fatalf("%d extractions for three reads of one file, want 1", n)
	}
	writeBytes(t, p, contenttest.PDF([]string{"second version"}, nil))
	os.Chtimes(p, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	out := e.mustCall("file_read", map[string]any{"path": "c.pdf"})
	wantAll(t, out, "second version")
	if n := content.Started() - before; n != 2 {
		t.Fatalf("%d extractions after the file changed, want 2", n)
	}
}

// Hostile files each answer within the limit, a failure in one line, and
// the daemon's own memory (this process) stays put.
func TestHostileFilesDoNotHurtTheDaemon(t *testing.T) {
	e := newEnv(t, false)
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	fw, _ := zw.Create("bomb.bin")
	zero := make([]byte, 1<<20)
	for range 64 {
		fw.Write(zero)
	}
	for i := range 5000 {
		zw.CreateHeader(&zip.FileHeader{Name: "n" + strconv.Itoa(i), Method: zip.Store})
	}
	zw.Close()
	writeBytes(t, filepath.Join(e.root, "bomb.zip"), zb.Bytes())
	writeBytes(t, filepath.Join(e.root, "loop.pdf"), contenttest.LoopPDF())
	jpg := contenttest.JPEG(16, 16, contenttest.EXIF{})
	writeBytes(t, filepath.Join(e.root, "cut.jpg"), jpg[:len(jpg)/10])
	big, err := os.Create(filepath.Join(e.root, "huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	big.Truncate(1 << 30)
	big.Close()

	rss0 := rssKiB(t)
	for _, name := range []string{"bomb.zip", "loop.pdf", "cut.jpg", "huge.bin"} {
		start := time.Now()
		out := e.mustCall("file_read", map[string]any{"path": name})
		if d := time.Since(start); d > content.ChildTimeout+2*time.Second {
			t.Errorf("%s took %s", name, d)
		}
		if strings.Count(strings.TrimSpace(out), "\n") > 210 {
			t.Errorf("%s: answer of %d lines", name, strings.Count(out, "\n"))
		}
		t.Logf("%s (%s): %s", name, time.Since(start).Round(time.Millisecond), firstLine(out))
	}
	if grown := rssKiB(t) - rss0; grown > 4<<10 {
		t.Fatalf("the daemon's RSS grew by %d KiB reading hostile files", grown)
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

func rssKiB(t *testing.T) int {
	runtime.GC()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status to read RSS from")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	t.Skip("no VmRSS")
	return 0
}
