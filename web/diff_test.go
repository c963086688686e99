//go:build unix

package web_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tend-agent/tend/web"
)

// TestLineDiffInChromium checks the viewer's line diff in the browser:
// the rows give back both texts, and an edit shows only the lines that
// differ.
func TestLineDiffInChromium(t *testing.T) {
	ctx := newBrowser(t)
	srv := httptest.NewServer(web.Handler())
	t.Cleanup(srv.Close)
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitReady(chromedp.CSS("body"))), "opening the page")
	tests := []struct {
		name, before, after string
		adds, dels          int
	}{
		{"same", "a\nb\n", "a\nb\n", 0, 0},
		{"empty to text", "", "one\ntwo\n", 2, 0},
		{"text to empty", "one\ntwo\n", "", 0, 2},
		{"line added in the middle", "a\nb\nc\n", "a\nb\nx\nc\n", 1, 0},
		{"line changed", "# Notes\n- call the bank\n- renew passport\n", "# Notes\n- called the bank (done)\n- renew passport\n", 1, 1},
		{"no final newline", "a\nb", "a\nc", 1, 1},
		{"moved block", "1\n2\n3\n4\n5\n", "4\n5\n1\n2\n3\n", 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			arg, _ := json.Marshal([]string{tc.before, tc.after})
			out := evalString(t, ctx, `JSON.stringify(window.tendDiff.lineDiff(...`+string(arg)+`))`)
			var rows []struct {
				T string `json:"t"`
				S string `json:"s"`
			}
			if err := json.Unmarshal([]byte(out), &rows); err != nil {
				t.Fatal(err)
			}
			var a, b []string
			adds, dels := 0, 0
			for _, r := range rows {
				switch r.T {
				case " ":
					a, b = append(a, r.S), append(b, r.S)
				case "-":
					a, dels = append(a, r.S), dels+1
				case "+":
					b, adds = append(b, r.S), adds+1
				}
			}
			if got := strings.Join(a, "\n"); got != strings.TrimSuffix(tc.before, "\n") {
				t.Errorf("the rows give back before as %q", got)
			}
			if got := strings.Join(b, "\n"); got != strings.TrimSuffix(tc.after, "\n") {
				t.Errorf("the rows give back after as %q", got)
			}
			if adds != tc.adds || dels != tc.dels {
				t.Errorf("+%d −%d, want +%d −%d: %s", adds, dels, tc.adds, tc.dels, out)
			}
		})
	}
}
