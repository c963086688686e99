// Package web is tend's history viewer: a small single-page app (plain
// HTML, JavaScript and CSS, embedded in the binary) that the daemon serves
// on its loopback listener, behind its token guard. The page lists the
// watchers with live badges from the daemon's event stream and shows each
// watcher's history: runs one line each, opened to their messages, tool
// calls and ledger, paged, searched and filtered by outcome; what a run
// changed (its paths before and after, a diff of its edits); Undo of any
// run, and Run now and Pause / Resume. It talks only to the daemon's own
// /v1 API on the same origin.
package web

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed assets
var assets embed.FS

// contentSecurityPolicy lets the page load only its own scripts, styles
// and API: no inline script, no other origin, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the viewer's page and its assets. Unknown paths get 404;
// the API under /v1/ is the daemon's and is not served here.
func Handler() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		// The embedded tree is fixed at build time; this cannot fail.
		return http.NotFoundHandler()
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "405: the viewer's pages are read with GET", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-cache")
		p := path.Clean("/" + r.URL.Path)
		if p == "/" || p == "/index.html" {
			serveIndex(w, r, sub)
			return
		}
		if strings.HasPrefix(p, "/v1/") || !isAsset(p) {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// isAsset reports whether p names one of the embedded files.
func isAsset(p string) bool {
	name := strings.TrimPrefix(p, "/")
	fi, err := fs.Stat(assets, "assets/"+name)
	return err == nil && !fi.IsDir()
}

func serveIndex(w http.ResponseWriter, r *http.Request, sub fs.FS) {
	b, err := fs.ReadFile(sub, "index.html")
	if err != nil {
		http.Error(w, "the viewer's page is missing from this build", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b)
}
