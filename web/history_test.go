//go:build unix

package web_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/watchers"
)

const (
	invoice     = "invoice-2026-11-acme-hosting.pdf"
	invoiceTo   = "Invoices/2026/" + invoice
	photo       = "IMG_2041.jpg"
	photoTo     = "Photos/2026-11/" + photo
	ledgerMD    = "invoices.md"
	ledgerOld   = "# Invoices\n\n| date | from | amount | file |\n|---|---|---|---|\n| 2026-10-03 | Northwind Energy | €84.10 | Invoices/2026/invoice-2026-10-northwind.pdf |\n"
	ledgerLine  = "| 2026-11-28 | Acme Hosting | €19.00 | " + invoiceTo + " |"
	seededRuns  = 24
	failedEvery = 5
)

// realisticRoot is where the test's folders live. For the screenshots in
// docs/ (TEND_UPDATE_SCREENSHOTS=1) it is /home/alex, so the pictures
// show the folders a person has, not a test's temporary path; it must
// not exist yet and is removed afterwards.
func realisticRoot(t *testing.T) string {
	t.Helper()
	if os.Getenv("TEND_UPDATE_SCREENSHOTS") != "1" {
		return t.TempDir()
	}
	root := "/home/alex"
	if _, err := os.Lstat(root); err == nil {
		t.Fatalf("%s exists: the screenshots need a home of their own there; remove it or run without TEND_UPDATE_SCREENSHOTS", root)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatalf("creating %s for the screenshots: %v", root, err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	return root
}

// seedRuns appends older runs to the watcher's session, as the runner
// writes them: enough for paging, some failed for the filter.
func seedRuns(t *testing.T, e *env, watcherID string) {
	t.Helper()
	h := dispatch.OpenHistory(e.home.Sessions(), watcherID)
	start := time.Now().Add(-time.Duration(seededRuns+1) * 7 * time.Hour)
	for i := 0; i < seededRuns; i++ {
		at := start.Add(time.Duration(i) * 7 * time.Hour).UTC()
		id := fmt.Sprintf("%s-%08x", at.Format("20060102T150405Z"), 0xa11ce000+i)
		shot := fmt.Sprintf("Screenshot %s at %s.png", at.Format("2006-01-02"), at.Format("15.04.05"))
		recs := []dispatch.Record{
			{Type: dispatch.RecRunStart, RunID: id, WatcherID: watcherID, Source: dispatch.SourceWatcher, Time: at,
				Trigger: "change", Changed: []dispatch.ChangedPath{{Path: shot}}, Provider: "ollama", Model: modelName, Pass: 1},
		}
		end := dispatch.Record{Type: dispatch.RecRunEnd, RunID: id, Time: at.Add(4 * time.Second), Outcome: dispatch.OutcomeDone,
			Passes: 1, DurationMs: 4100, PromptTokens: 1840, CompletionTokens: 96}
		if i%failedEvery == 0 {
			recs = append(recs, dispatch.Record{Type: dispatch.RecMessage, RunID: id, Time: at, Pass: 1, Role: "system",
				Content: "run failed: the model server at http://127.0.0.1:11434 did not answer: connection refused (is Ollama running?)"})
			end.Outcome, end.Reason = dispatch.OutcomeFailed, "the model server at http://127.0.0.1:11434 did not answer: connection refused (is Ollama running?)"
			end.PromptTokens, end.CompletionTokens = 0, 0
		} else {
			recs = append(recs, dispatch.Record{Type: dispatch.RecMessage, RunID: id, Time: at, Pass: 1, Role: "assistant",
				Content: shot + " is a screenshot, not an invoice: left where it is."})
		}
		for _, rec := range append(recs, end) {
			if err := h.Append(rec); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestHistoryViewer drives the history of a watcher whose model made two
// real runs (filing an invoice and recording it in a Markdown list, then
// filing a photo) after 24 older ones: collapsed runs, paging, search,
// the outcome filter, the diff of the edit, per-run Undo and its badge,
// pending changes, at 1280 and 390 px, light and dark.
func TestHistoryViewer(t *testing.T) {
	ctx := newBrowser(t)
	hold := make(chan struct{}) // keeps the third run going
	e := startDaemon(t, modeltest.Sequence(
		modeltest.Calls(
			modeltest.Call("file_move", `{"from":"`+invoice+`","to":"`+invoiceTo+`"}`),
			modeltest.Call("file_edit", `{"path":"`+ledgerMD+`","old":"invoice-2026-10-northwind.pdf |\n","new":"invoice-2026-10-northwind.pdf |\n`+strings.ReplaceAll(ledgerLine, `"`, `\"`)+`\n"}`)),
		modeltest.Text("Filed the Acme Hosting invoice of 28 November under Invoices/2026/ and added it to invoices.md."),
		modeltest.Calls(modeltest.Call("file_move", `{"from":"`+photo+`","to":"`+photoTo+`"}`)),
		modeltest.Text("Moved the photo IMG_2041.jpg to Photos/2026-11/."),
		modeltest.Response{Text: "Filed the bank statement.", Wait: hold}))
	t.Cleanup(func() { close(hold) })

	root := realisticRoot(t)
	downloads := filepath.Join(root, "Downloads")
	notes := filepath.Join(root, "Documents", "Notes")
	for _, d := range []string{downloads, notes} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(downloads, ledgerMD), ledgerOld)
	writeFile(t, filepath.Join(downloads, "Invoices", "2026", "invoice-2026-10-northwind.pdf"), "%PDF-1.7 northwind")
	e.addWatcher(t, "downloads", downloads, "File invoices under Invoices/YYYY/ by the date they show, and add each to invoices.md; put photos under Photos/YYYY-MM/.", true)
	e.addWatcher(t, "notes", notes, "Keep my notes tidy: one folder per project, a link from each note to related ones.", false)
	v := e.waitState(t, "downloads", "the baseline", func(v api.View) bool { return v.State.Phase == watchers.PhaseIdle })
	seedRuns(t, e, v.Definition.ID)

	writeFile(t, filepath.Join(downloads, invoice), "%PDF-1.7 acme hosting invoice")
	e.waitState(t, "downloads", "the invoice's run", func(v api.View) bool {
		return v.State.Phase == watchers.PhaseIdle && v.State.FireCount >= 1 && v.State.LastOutcome != ""
	})
	writeFile(t, filepath.Join(downloads, photo), "JFIF photo")
	e.waitState(t, "downloads", "the photo's run", func(v api.View) bool {
		return v.State.Phase == watchers.PhaseIdle && v.State.FireCount >= 2 && v.State.LastOutcome != ""
	})
	if _, err := os.Stat(filepath.Join(downloads, photoTo)); err != nil {
		t.Fatalf("the second run did not file the photo: %v", err)
	}
	raw, err := e.c.History(context.Background(), "downloads")
	if err != nil {
		t.Fatal(err)
	}
	ids := runIDs(t, string(raw))
	if len(ids) != seededRuns+2 {
		t.Fatalf("%d runs in the history, want %d", len(ids), seededRuns+2)
	}
	photoRun, invoiceRun := ids[0], ids[1]
	checkChangesAPI(t, e, invoiceRun)

	// The list page, for the screenshot.
	must(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 720),
		chromedp.Navigate(e.base+"/?token="+e.token),
		chromedp.WaitVisible(chromedp.CSS(`li.watcher[data-name="downloads"] .badge`)),
	), "opening the list page")
	screenshot(t, ctx, "viewer-list.png", 1280)

	must(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`li.watcher[data-name="downloads"] a.wname`)),
		chromedp.WaitVisible(chromedp.CSS(`#runs article.run`)),
	), "opening the watcher page")
	sel := `article.run[data-run="` + invoiceRun + `"]`
	wantFailed := (seededRuns + failedEvery - 1) / failedEvery

	// Every run is one closed line; a page holds 20.
	t.Run("collapsed runs and paging", func(t *testing.T) {
		ctx := within(t, ctx, 20*time.Second)
		mustEval(t, ctx, `document.querySelectorAll('#runs article.run').length === 20`)
		mustEval(t, ctx, `Array.from(document.querySelectorAll('#runs .run-body')).every((b) => b.hidden && b.offsetHeight === 0)`)
		line := text(t, ctx, `article.run[data-run="`+invoiceRun+`"] .run-line`)
		for _, want := range []string{"change", "done", "2 changes", "1 pass"} {
			if !strings.Contains(line, want) {
				t.Errorf("the invoice run's line %q does not show %q", line, want)
			}
		}
		if got := text(t, ctx, "#page-info"); got != "1–20 of 26" {
			t.Errorf("pager says %q", got)
		}
		must(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("older"))), "clicking Older")
		mustEval(t, ctx, `document.querySelectorAll('#runs article.run').length === 6 && document.getElementById('page-info').textContent === '21–26 of 26'`)
		must(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("newer"))), "clicking Newer")
	})

	// A click opens a run and another closes it.
	t.Run("a click opens a run", func(t *testing.T) {
		ctx := within(t, ctx, 20*time.Second)
		must(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel+` .run-line`)), chromedp.WaitVisible(chromedp.CSS(sel+` .run-body`))), "opening the run")
		mustEval(t, ctx, `document.querySelector('`+sel+` .run-line').getAttribute('aria-expanded') === 'true'`)
		if got := text(t, ctx, sel+" .runmeta .model"); !strings.Contains(got, "ollama · "+modelName) {
			t.Errorf("the run does not name its model: %q", got)
		}
	})

	// What it changed: the trees and the diff of the edit.
	t.Run("the diff of an edit", func(t *testing.T) {
		ctx := within(t, ctx, 20*time.Second)
		poll(t, ctx, "the diff of invoices.md", `document.querySelector('`+sel+` .file-diff[data-path="invoices.md"] table.diff') !== null`)
		adds := evalString(t, ctx, `Array.from(document.querySelectorAll('`+sel+` .file-diff[data-path="invoices.md"] tr.add td.code')).map((td) => td.textContent).join('\n')`)
		if adds != "+"+ledgerLine {
			t.Errorf("the diff's added lines are %q, want %q", adds, "+"+ledgerLine)
		}
		mustEval(t, ctx, `document.querySelectorAll('`+sel+` .file-diff tr.del').length === 0`)
		// The line numbers take a narrow column; the text gets the rest.
		mustEval(t, ctx, `(() => { const td = document.querySelector('`+sel+` .file-diff tr.add td.ln'); return td.offsetWidth < 60 })()`)
		before := text(t, ctx, sel+" .tree-side.before")
		after := text(t, ctx, sel+" .tree-side.after")
		if !strings.Contains(before, invoice) || !strings.Contains(before, "removed") || !strings.Contains(after, invoice) || !strings.Contains(after, "added") || !strings.Contains(after, "2026/") {
			t.Errorf("trees: before %q, after %q", before, after)
		}
		noOverflow(t, ctx, "1280 px with the diff open")
		screenshot(t, ctx, "viewer-diff.png", 1280)

		must(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel+` .run-line`))), "closing the run")
		mustEval(t, ctx, `document.querySelector('`+sel+` .run-body').hidden && document.querySelector('`+sel+` .run-line').getAttribute('aria-expanded') === 'false'`)
	})

	// Search looks in paths, messages and tool calls.
	t.Run("search", func(t *testing.T) {
		ctx := within(t, ctx, 20*time.Second)
		must(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("run-search"), "acme")), "typing a search")
		poll(t, ctx, "one run matching acme", `document.querySelectorAll('#runs article.run').length === 1`)
		mustEval(t, ctx, `document.querySelector('#runs article.run').dataset.run === '`+invoiceRun+`'`)
		search(t, ctx, "IMG_2041")
		mustEval(t, ctx, `document.querySelectorAll('#runs article.run').length === 1 && document.querySelector('#runs article.run').dataset.run === '`+photoRun+`'`)
		search(t, ctx, "connection refused")
		mustEval(t, ctx, fmt.Sprintf(`document.querySelectorAll('#runs article.run').length === %d`, wantFailed))
		search(t, ctx, "no such words anywhere")
		mustEval(t, ctx, `document.querySelectorAll('#runs article.run').length === 0 && document.getElementById('no-match') !== null`)
		search(t, ctx, "")
	})

	// The outcome filter.
	t.Run("outcome filter", func(t *testing.T) {
		ctx := within(t, ctx, 20*time.Second)
		filter(t, ctx, "failed")
		mustEval(t, ctx, fmt.Sprintf(`(() => { const r = document.querySelectorAll('#runs article.run');
			return r.length === %d && Array.from(r).every((a) => a.dataset.outcome === 'failed') })()`, wantFailed))
		filter(t, ctx, "done")
		mustEval(t, ctx, fmt.Sprintf(`document.getElementById('run-count').textContent === '%d of 26'`, 26-wantFailed))
		filter(t, ctx, "")
	})

	// Undo the invoice run, which is not the last: by its own button.
	t.Run("undo one run", func(t *testing.T) {
		ctx := within(t, ctx, 20*time.Second)
		must(t, chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(sel+` .run-line`)),
			chromedp.WaitVisible(chromedp.CSS(sel+` button.undo-run`)),
			chromedp.Click(chromedp.CSS(sel+` button.undo-run`)),
		), "undoing the invoice run")
		poll(t, ctx, "the undone badge", `document.querySelector('`+sel+` .run-line .undone-badge')?.textContent === 'undone'`)
		mustEval(t, ctx, `document.querySelector('article.run[data-run="`+photoRun+`"] .undone-badge') === null`)
		mustEval(t, ctx, `document.querySelector('`+sel+` button.undo-run') === null`)
		if b, err := os.ReadFile(filepath.Join(downloads, invoice)); err != nil || string(b) != "%PDF-1.7 acme hosting invoice" {
			t.Errorf("after Undo the invoice is not back: %v", err)
		}
		if b, _ := os.ReadFile(filepath.Join(downloads, ledgerMD)); string(b) != ledgerOld {
			t.Errorf("after Undo invoices.md is %q", b)
		}
		if _, err := os.Stat(filepath.Join(downloads, photoTo)); err != nil {
			t.Errorf("undoing the first run took back the second: %v", err)
		}
		// The undone run still shows what it had changed, and the filter
		// finds it.
		poll(t, ctx, "the undone run's diff", `document.querySelector('`+sel+` .changes-view') !== null && document.querySelector('`+sel+` .changes-view').textContent.includes('was undone')`)
		filter(t, ctx, "undone")
		mustEval(t, ctx, `document.querySelectorAll('#runs article.run').length === 1`)
		filter(t, ctx, "")
	})

	// A change seen while a run is going is listed as pending, live.
	t.Run("pending changes", func(t *testing.T) {
		ctx := within(t, ctx, 20*time.Second)
		writeFile(t, filepath.Join(downloads, "statement-2026-11.pdf"), "%PDF-1.7 bank statement")
		e.waitState(t, "downloads", "the pending change", func(v api.View) bool { return v.State.PendingCount >= 1 })
		poll(t, ctx, "the pending list", `(() => { const p = document.getElementById('pending-list'); return p && !p.hidden && p.textContent.includes('statement-2026-11.pdf') })()`)
		must(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#pending-list summary`))), "opening the pending list")
		screenshot(t, ctx, "viewer-history.png", 1280)
	})

	// A phone: 390 px wide, nothing runs off the side, the diff included.
	t.Run("390 px", func(t *testing.T) {
		ctx := within(t, ctx, 20*time.Second)
		must(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(3), chromedp.EmulateMobile)), "a 390 px screen")
		mustEval(t, ctx, `window.innerWidth === 390`)
		noOverflow(t, ctx, "390 px")
		poll(t, ctx, "the diff at 390 px", `document.querySelector('`+sel+` .file-diff') !== null`)
		mustEval(t, ctx, `document.querySelector('#run-search').getBoundingClientRect().right <= 390`)
		noOverflow(t, ctx, "390 px with a run and its diff open")
		screenshot(t, ctx, "viewer-phone.png", 390)
	})

	// Dark mode follows the system.
	t.Run("dark mode", func(t *testing.T) {
		ctx := within(t, ctx, 20*time.Second)
		bg := func() string {
			return evalString(t, ctx, `getComputedStyle(document.body).backgroundColor`)
		}
		light := bg()
		setScheme(t, ctx, "dark")
		dark := bg()
		if light != "rgb(246, 247, 249)" || dark != "rgb(20, 23, 30)" {
			t.Errorf("page background: light %s, dark %s", light, dark)
		}
		mustEval(t, ctx, `getComputedStyle(document.querySelector('`+sel+` .run-line')).backgroundColor === 'rgb(32, 37, 47)'`)
		mustEval(t, ctx, `getComputedStyle(document.querySelector('`+sel+` .file-diff tr.add')).backgroundColor === 'rgb(23, 51, 36)'`)
		must(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720)), "back to 1280 px")
		noOverflow(t, ctx, "1280 px, dark")
		screenshot(t, ctx, "viewer-dark.png", 1280)
		setScheme(t, ctx, "light")
	})
}

// checkChangesAPI reads what the invoice run changed through the API,
// and the answers to run ids that are wrong or unknown.
func checkChangesAPI(t *testing.T, e *env, runID string) {
	t.Helper()
	rc, err := e.c.Changes(context.Background(), "downloads", runID)
	if err != nil {
		t.Fatalf("reading the run's changes: %v", err)
	}
	if len(rc.Files) != 1 || rc.Files[0].Path != ledgerMD || rc.Files[0].Op != "edit" ||
		rc.Files[0].Before == nil || *rc.Files[0].Before != ledgerOld ||
		rc.Files[0].After == nil || *rc.Files[0].After != ledgerOld+ledgerLine+"\n" {
		t.Errorf("the run's changed files: %+v", rc.Files)
	}
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/v1/watchers/downloads/runs/" + runID + "/changes", http.StatusOK},
		{"/v1/watchers/downloads/runs/not-a-run/changes", http.StatusBadRequest},
		{"/v1/watchers/downloads/runs/..%2F..%2Fsecret/changes", http.StatusBadRequest},
		{"/v1/watchers/downloads/runs/20270101T000000Z-deadbeef/changes", http.StatusNotFound},
		// An unknown watcher is a bad request, as on the daemon's other routes.
		{"/v1/watchers/nobody/runs/" + runID + "/changes", http.StatusBadRequest},
	} {
		req, _ := http.NewRequest("GET", e.base+tc.path, nil)
		req.Header.Set("Authorization", "Bearer "+e.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("GET %s: %s, want %d", tc.path, resp.Status, tc.want)
		}
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runIDs reads the run ids of a history answer, newest first.
func runIDs(t *testing.T, raw string) []string {
	t.Helper()
	var ids []string
	for _, part := range strings.Split(raw, `{"id":"`)[1:] {
		ids = append(ids, part[:strings.Index(part, `"`)])
	}
	return ids
}

func evalString(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return s
}

// search sets the search box as typing would.
func search(t *testing.T, ctx context.Context, q string) {
	t.Helper()
	mustEval(t, ctx, fmt.Sprintf(`(() => { const i = document.getElementById('run-search'); i.value = %q;
		i.dispatchEvent(new Event('input', { bubbles: true })); return true })()`, q))
}

// filter picks an outcome as a click in the menu would.
func filter(t *testing.T, ctx context.Context, outcome string) {
	t.Helper()
	mustEval(t, ctx, fmt.Sprintf(`(() => { const s = document.getElementById('run-filter');
		if (!Array.from(s.options).some((o) => o.value === %[1]q)) return false;
		s.value = %[1]q; s.dispatchEvent(new Event('change', { bubbles: true })); return true })()`, outcome))
}

// noOverflow fails when the page is wider than the window.
func noOverflow(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	// An element sticking out past the window, or content cut off by a
	// box that hides its overflow (which no scrolling reveals), both fail.
	expr := `(() => { const w = document.documentElement.clientWidth;
		const wide = Array.from(document.querySelectorAll('main *')).filter((e) => {
			if (e.offsetParent === null) return false;
			if (e.getBoundingClientRect().right > w + 0.5) return true;
			const cs = getComputedStyle(e);
			return (cs.overflowX === 'hidden' || cs.overflowX === 'clip') && cs.textOverflow !== 'ellipsis' && e.scrollWidth > e.clientWidth + 1;
		}).slice(0, 5).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right) + ' ' + e.scrollWidth + '/' + e.clientWidth);
		return JSON.stringify({ scroll: document.documentElement.scrollWidth, width: w, wide: wide }) })()`
	got := evalString(t, ctx, expr)
	var scroll, width int
	fmt.Sscanf(got, `{"scroll":%d,"width":%d`, &scroll, &width)
	if scroll > width || !strings.HasSuffix(got, `"wide":[]}`) {
		t.Errorf("%s: the page runs off the side: %s", what, got)
	}
}

func setScheme(t *testing.T, ctx context.Context, scheme string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
		t.Fatalf("emulating prefers-color-scheme: %s: %v", scheme, err)
	}
}

// within bounds one part of a browser test, so a part that waits for
// something that never comes fails alone and the next one still runs.
func within(t *testing.T, ctx context.Context, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(ctx, d)
	t.Cleanup(cancel)
	return ctx
}
