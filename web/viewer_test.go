//go:build unix

package web_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/watchers"
)

const (
	scan     = "scan-0412.pdf"
	filedTo  = "Invoices/2026/scan-0412.pdf"
	pollWait = 10 * time.Second
)

// TestViewerInChromium drives the viewer in a real headless Chromium
// against a real daemon whose watcher made a real run (a file_move by the
// stand-in model): the list, the run's tool calls, a live badge change
// caused from the CLI side, Undo, and the token guard.
func TestViewerInChromium(t *testing.T) {
	ctx := newBrowser(t) // skips without Chromium, before anything starts
	e := startDaemon(t, modeltest.Sequence(
		modeltest.Calls(
			modeltest.Call("file_tree", ""),
			modeltest.Call("file_move", `{"from":"`+scan+`","to":"`+filedTo+`"}`)),
		modeltest.Text("Filed scan-0412.pdf under Invoices/2026/: it is an invoice dated April 2026.")))

	root := t.TempDir()
	inbox := filepath.Join(root, "inbox")
	notes := filepath.Join(root, "notes")
	for _, d := range []string{inbox, notes} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.addWatcher(t, "inbox", inbox, "File every scanned PDF under Invoices/YYYY/ by the date it shows.", true)
	e.addWatcher(t, "notes", notes, "Keep notes/ tidy: one folder per project, links between related notes.", false)
	e.waitState(t, "inbox", "the baseline", func(v api.View) bool { return v.State.Phase == watchers.PhaseIdle })

	// A file arrives; the watcher runs the model, which files it.
	if err := os.WriteFile(filepath.Join(inbox, scan), []byte("%PDF-1.7 invoice"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.waitState(t, "inbox", "the run", func(v api.View) bool {
		return v.State.Phase == watchers.PhaseIdle && v.State.LastOutcome != ""
	})
	if _, err := os.Stat(filepath.Join(inbox, filedTo)); err != nil {
		t.Fatalf("the run did not move the file: %v", err)
	}

	// The list page, opened with the link `tend open` prints.
	must(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(1100, 720),
		chromedp.Navigate(e.base+"/?token="+e.token),
		chromedp.WaitVisible(chromedp.CSS(`li.watcher[data-name="inbox"] .badge`)),
		chromedp.WaitVisible(chromedp.CSS(`li.watcher[data-name="notes"] .badge`)),
	), "opening the list page")
	list := text(t, ctx, "#watchers")
	for _, want := range []string{"inbox", inbox, "notes", notes, "Watching", "Paused", "1 fire"} {
		if !strings.Contains(list, want) {
			t.Errorf("the list page does not show %q:\n%s", want, list)
		}
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if strings.Contains(loc, "token=") {
		t.Errorf("the token stays in the address bar: %s", loc)
	}

	// The watcher page shows the run with its tool calls and ledger.
	must(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`li.watcher[data-name="inbox"] a.wname`)),
		chromedp.WaitVisible(chromedp.CSS(`article.run .run-line`)),
		chromedp.Click(chromedp.CSS(`article.run .run-line`)),
		chromedp.WaitVisible(chromedp.CSS(`article.run details.tool`)),
	), "opening the watcher page and its run")
	runs := text(t, ctx, "#runs")
	for _, want := range []string{"file_tree", "file_move", `from="` + scan + `"`, `to="` + filedTo + `"`,
		"Filed scan-0412.pdf", "done", "move", scan, "change"} {
		if !strings.Contains(runs, want) {
			t.Errorf("the watcher page does not show %q:\n%s", want, runs)
		}
	}
	// Open the move's details: arguments and result.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
		`(() => { const d = document.querySelectorAll('details.tool'); d[d.length-1].open = true; return true })()`)); err != nil {
		t.Fatal(err)
	}

	// Paused from the CLI side: the open page follows without a reload.
	mustEval(t, ctx, `(window.__stillHere = 42) === 42`)
	if err := e.c.Pause(context.Background(), "inbox"); err != nil {
		t.Fatalf("pausing over the socket: %v", err)
	}
	poll(t, ctx, "the badge says Paused and the button Resume",
		`document.querySelector('#badge .badge')?.textContent === 'Paused' && document.getElementById('toggle').textContent === 'Resume'`)
	mustEval(t, ctx, `window.__stillHere === 42`)

	// Resume from the page, then Undo the run.
	must(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("toggle"))), "clicking Resume")
	poll(t, ctx, "the badge says Watching", `document.querySelector('#badge .badge')?.textContent === 'Watching'`)
	e.waitState(t, "inbox", "the new baseline", func(v api.View) bool { return v.State.Phase == watchers.PhaseIdle })
	must(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("undo")),
		chromedp.WaitVisible(chromedp.ID("undo-result")),
	), "clicking Undo")
	if got := text(t, ctx, "#undo-result"); !strings.Contains(got, "Undid run") || !strings.Contains(got, scan) {
		t.Errorf("undo result: %q", got)
	}
	if b, err := os.ReadFile(filepath.Join(inbox, scan)); err != nil || string(b) != "%PDF-1.7 invoice" {
		t.Errorf("after Undo the file is not back in place: %v", err)
	}
	if _, err := os.Stat(filepath.Join(inbox, filedTo)); !os.IsNotExist(err) {
		t.Errorf("after Undo the moved copy is still there: %v", err)
	}
	poll(t, ctx, "the run shows it was undone", `document.querySelector('#runs .undo-note.ok') !== null`)

	// A second Undo has nothing left to undo, and says so.
	must(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("undo"))), "clicking Undo again")
	poll(t, ctx, "the refusal", `document.getElementById('result').textContent.includes('nothing to undo')`)

	// A watcher added elsewhere appears on the open list page; its
	// hostile folder name stays text.
	must(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`a.back`)),
		chromedp.WaitVisible(chromedp.CSS(`li.watcher[data-name="inbox"]`)),
	), "back to the list")
	hostile := filepath.Join(root, `<img src=x onerror="window.__pwned=1">`)
	if err := os.Mkdir(hostile, 0o755); err != nil {
		t.Fatal(err)
	}
	e.addWatcher(t, "hostile", hostile, "Nothing.", false)
	poll(t, ctx, "the new watcher on the list", `document.querySelector('li.watcher[data-name="hostile"]') !== null`)
	mustEval(t, ctx, `window.__pwned === undefined && document.querySelectorAll('main img').length === 0`)
	if got := text(t, ctx, `li.watcher[data-name="hostile"] .folder`); got != hostile {
		t.Errorf("hostile folder shown as %q, want %q", got, hostile)
	}
}

// TestViewerGuard checks the token and X-Tend rules with plain HTTP.
func TestViewerGuard(t *testing.T) {
	e := startDaemon(t, nil)
	tests := []struct {
		name, method, path string
		cookie, xtend      bool
		want               int
	}{
		{"page without token", "GET", "/", false, false, http.StatusUnauthorized},
		{"api without token", "GET", "/v1/watchers", false, false, http.StatusUnauthorized},
		{"events without token", "GET", "/v1/events", false, false, http.StatusUnauthorized},
		{"wrong token in link", "GET", "/?token=not-the-token", false, false, http.StatusUnauthorized},
		{"token in link", "GET", "/?token=" + e.token, false, false, http.StatusOK},
		{"page with cookie", "GET", "/", true, false, http.StatusOK},
		{"api with cookie", "GET", "/v1/watchers", true, false, http.StatusOK},
		{"POST without X-Tend", "POST", "/v1/pause-all", true, false, http.StatusForbidden},
		{"POST with token only in link", "POST", "/v1/pause-all?token=" + e.token, false, true, http.StatusUnauthorized},
		{"POST with X-Tend", "POST", "/v1/pause-all", true, true, http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, e.base+tc.path, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			if tc.cookie {
				req.AddCookie(&http.Cookie{Name: e.cookie, Value: e.token})
			}
			if tc.xtend {
				req.Header.Set("X-Tend", "1")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("%s %s: %s, want %d", tc.method, tc.path, resp.Status, tc.want)
			}
		})
	}
}

func must(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("reading %s: %v", sel, err)
	}
	return s
}

func mustEval(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
	if err != nil || !ok {
		t.Fatalf("%s: %v, %v", expr, ok, err)
	}
}

func poll(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(pollWait))); err != nil {
		t.Fatalf("waiting for %s (%s): %v", what, expr, err)
	}
}

// screenshot writes docs/NAME when TEND_UPDATE_SCREENSHOTS=1, the page
// whole at the given width.
func screenshot(t *testing.T, ctx context.Context, name string, width int64) {
	t.Helper()
	// Grow the viewport to the whole page, take it, and size it back.
	height, err := chromedp.Run(ctx, chromedp.Evaluate[int64](`Math.max(720, Math.ceil(document.documentElement.scrollHeight))`))
	if err != nil {
		t.Fatalf("measuring the page for %s: %v", name, err)
	}
	must(t, chromedp.Do(ctx, chromedp.EmulateViewport(width, height)), "resizing for "+name)
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	must(t, chromedp.Do(ctx, chromedp.EmulateViewport(width, 720)), "resizing after "+name)
	if os.Getenv("TEND_UPDATE_SCREENSHOTS") != "1" {
		return
	}
	dir := filepath.Join("..", "docs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote docs/%s", name)
}
