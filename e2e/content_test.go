package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/content/contenttest"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/watchers"
)

var isoDate = regexp.MustCompile(`\b(\d{4})-(\d{2})-\d{2}`)

// filer is a model that reads every file its prompt lists, then moves
// each into YEAR/MONTH/ by the first date it read in that file, then says
// it is done. It knows only what file_read told it.
func filer(t *testing.T) modeltest.Script {
	return func(r modeltest.Request) modeltest.Response {
		assistant := 0
		for _, m := range r.Messages {
			if m.Role == "assistant" {
				assistant++
			}
		}
		switch assistant {
		case 0:
			var calls []modeltest.ToolCall
			for _, p := range listed(r.FirstUser(), false) {
				args, _ := json.Marshal(map[string]string{"path": p})
				calls = append(calls, modeltest.Call("file_read", string(args)))
			}
			return modeltest.Calls(calls...)
		case 1:
			var calls []modeltest.ToolCall
			for _, m := range r.Messages {
				if m.Role != "tool" {
					continue
				}
				name, _, ok := strings.Cut(m.Content, " is a ")
				d := isoDate.FindStringSubmatch(m.Content)
				if !ok || d == nil {
					t.Logf("the filer found no date in:\n%s", m.Content)
					continue
				}
				args, _ := json.Marshal(map[string]string{"from": name, "to": d[1] + "/" + d[2] + "/" + name})
				calls = append(calls, modeltest.Call("file_move", string(args)))
			}
			if len(calls) == 0 {
				return modeltest.Text("I could not find dates in these files.")
			}
			return modeltest.Calls(calls...)
		}
		return modeltest.Text("Filed the new files by their dates.")
	}
}

// A PDF invoice, a DOCX contract and a JPEG photo whose dates are only
// inside them (names say nothing, mtimes are years off) are filed into
// folders by those dates in one pass, the model seeing them through
// file_read alone.
func TestFilesFiledByDatesInsideThem(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOllama(t, filer(t))
	e := start(t, envOptions{})
	dir := t.TempDir()
	e.add(watchers.Definition{Name: "inbox", Path: dir, Provider: ollama(srv),
		Instructions: "File every document and photo under YEAR/MONTH by the date inside it."})

	files := map[string][]byte{
		"scan0001.pdf":  contenttest.PDF([]string{"ACME GmbH\nInvoice no. 4711\nInvoice date: 2023-05-17\nTotal: 120.00 EUR"}, map[string]string{"Title": "Invoice 4711"}),
		"document.docx": contenttest.DOCX([]string{"Service contract between A and B.", "Signed in Berlin on 2021-03-03."}, "Contract", "", ""),
		"IMG.jpg":       contenttest.JPEG(32, 24, contenttest.EXIF{Make: "Canon", Model: "EOS", DateTimeOriginal: "2019:07:14 16:20:00"}),
	}
	want := map[string]string{"scan0001.pdf": "2023/05", "document.docx": "2021/03", "IMG.jpg": "2019/07"}
	old := time.Date(2010, 1, 2, 3, 4, 5, 0, time.UTC)
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	runs := e.waitRuns("inbox", 1)
	if r := runs[0]; r.End.Outcome != dispatch.OutcomeDone || r.End.Passes != 1 {
		t.Fatalf("run ended %s after %d pass(es), want done after 1:%s", r.End.Outcome, r.End.Passes, describe(runs))
	}
	for name, folder := range want {
		got, err := os.ReadFile(filepath.Join(dir, folder, name))
		if err != nil || string(got) != string(files[name]) {
			t.Fatalf("%s was not filed under %s: %v%s", name, folder, err, describe(runs))
		}
	}
	if n := srv.Calls(); n != 3 {
		t.Fatalf("the stand-in saw %d chat requests, want 3 (read, move, done)", n)
	}
	e.quiet("inbox", 1)
}
