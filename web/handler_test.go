package web_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tend-agent/tend/web"
)

func TestHandlerServesTheEmbeddedApp(t *testing.T) {
	tests := []struct {
		method, path string
		code         int
		ctype, body  string
	}{
		{"GET", "/", 200, "text/html", `<script src="app.js"`},
		{"GET", "/index.html", 200, "text/html", `id="app"`},
		{"GET", "/app.js", 200, "javascript", "EventSource"},
		{"GET", "/render.js", 200, "javascript", "renderRun"},
		{"GET", "/style.css", 200, "text/css", ".badge"},
		{"GET", "/diff.js", 200, "javascript", "lineDiff"},
		{"HEAD", "/", 200, "text/html", ""},
		{"GET", "/nothing-here.js", 404, "", ""},
		{"GET", "/v1/watchers", 404, "", ""},
		{"GET", "/../web.go", 404, "", ""},
		{"POST", "/", 405, "", ""},
	}
	h := web.Handler()
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			res := rec.Result()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tc.code {
				t.Fatalf("status %d, want %d (%s)", res.StatusCode, tc.code, body)
			}
			if tc.code != 200 {
				return
			}
			if ct := res.Header.Get("Content-Type"); !strings.Contains(ct, tc.ctype) {
				t.Errorf("Content-Type %q, want %q", ct, tc.ctype)
			}
			if !strings.Contains(string(body), tc.body) {
				t.Errorf("body does not contain %q", tc.body)
			}
			csp := res.Header.Get("Content-Security-Policy")
			if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Errorf("Content-Security-Policy %q is missing its limits", csp)
			}
			if res.Header.Get("Referrer-Policy") != "no-referrer" {
				t.Errorf("Referrer-Policy %q: the token in a link must not leak", res.Header.Get("Referrer-Policy"))
			}
		})
	}
}

// The page must never turn data into markup: no innerHTML, outerHTML,
// insertAdjacentHTML or document.write anywhere in the script.
func TestScriptNeverParsesDataAsHTML(t *testing.T) {
	var all string
	for _, name := range []string{"app.js", "render.js", "diff.js"} {
		rec := httptest.NewRecorder()
		web.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/"+name, nil))
		js := rec.Body.String()
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("} {
			if strings.Contains(js, bad) {
				t.Errorf("%s uses %s: build nodes with text nodes instead", name, bad)
			}
		}
		all += js
	}
	js := all
	if !strings.Contains(js, "'X-Tend'") || !strings.Contains(js, "credentials: 'same-origin'") {
		t.Error("app.js must send X-Tend and same-origin credentials with its requests")
	}
}
