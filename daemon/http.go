package daemon

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/tend-agent/tend/internal/atomicfile"
)

// LoadToken reads the browser token from TEND_HOME, creating it (mode
// 0600) the first time.
func LoadToken(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		if t := strings.TrimSpace(string(b)); len(t) >= 32 {
			return t, nil
		}
	}
	buf := make([]byte, 24)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	t := hex.EncodeToString(buf)
	if err := atomicfile.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", err
	}
	return t, nil
}

// serveHTTP starts the loopback listener for the history viewer.
func (d *Daemon) serveHTTP() (*http.Server, error) {
	host, _, err := net.SplitHostPort(d.cfg.HTTPAddr)
	if err != nil {
		return nil, fmt.Errorf("invalid --http address %q: %v (use host:port, e.g. 127.0.0.1:7433)", d.cfg.HTTPAddr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("--http %s is not a loopback address: the viewer is only served on 127.0.0.1 or ::1", d.cfg.HTTPAddr)
	}
	tok, err := LoadToken(d.cfg.Home.Token())
	if err != nil {
		return nil, fmt.Errorf("creating the viewer token: %w", err)
	}
	d.token = tok
	ln, err := net.Listen("tcp", d.cfg.HTTPAddr)
	if err != nil {
		return nil, &viewerOffError{addr: d.cfg.HTTPAddr, err: err}
	}
	d.httpAddr = ln.Addr().String()
	srv := &http.Server{Handler: d.guard(d.routes(true)), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return srv, nil
}

// viewerOffError is a viewer that could not listen (its port taken, most
// often). Unlike a wrong --http address, it does not stop the daemon.
type viewerOffError struct {
	addr string
	err  error
}

func (e *viewerOffError) Error() string {
	return fmt.Sprintf("history viewer off: cannot listen on %s: %v; the watchers run without it (free the port and restart the daemon, or choose another with --http)",
		e.addr, e.err)
}

func (e *viewerOffError) Unwrap() error { return e.err }

func (d *Daemon) httpURL() string {
	if d.httpAddr == "" {
		return ""
	}
	return "http://" + d.httpAddr + "/"
}

// CookieName is the viewer's cookie. Browsers share cookies across the
// ports of one host, so the name carries the port: two daemons (two
// TEND_HOMEs) on 127.0.0.1 then never overwrite each other's token.
func (d *Daemon) CookieName() string {
	_, port, _ := net.SplitHostPort(d.httpAddr)
	return "tend_token_" + port
}

// HTTPAddr is the address the viewer listens on ("" when off).
func (d *Daemon) HTTPAddr() string { return d.httpAddr }

// guard lets through only loopback peers that present the token (header,
// cookie, or ?token= on a page load, which then sets the cookie), and
// only POST/PATCH/DELETE for changes.
func (d *Daemon) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			http.Error(w, "tend serves loopback clients only", http.StatusForbidden)
			return
		}
		if !d.loopbackHost(r.Host) {
			http.Error(w, "421: tend answers only to 127.0.0.1, localhost or [::1] with its own port; open the viewer with `tend open`", http.StatusMisdirectedRequest)
			return
		}
		tok := ""
		if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
			tok = strings.TrimPrefix(h, "Bearer ")
		} else if q := r.URL.Query().Get("token"); q != "" && r.Method == http.MethodGet {
			tok = q // a fresh link wins over a stale cookie
		} else if c, err := r.Cookie(d.CookieName()); err == nil {
			tok = c.Value
		}
		if subtle.ConstantTimeCompare([]byte(tok), []byte(d.token)) != 1 {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintln(w, "401: missing or wrong token; open the viewer with `tend open`")
			return
		}
		if r.URL.Query().Get("token") != "" {
			http.SetCookie(w, &http.Cookie{Name: d.CookieName(), Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		}
		// Changes must be requests a page cannot make by a plain link.
		if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Header.Get("X-Tend") == "" && r.Header.Get("Authorization") == "" {
			http.Error(w, "state-changing requests need the X-Tend header", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a request's Host header names the viewer
// itself: a loopback name with the port it listens on. A web page whose
// own name was pointed at 127.0.0.1 (DNS rebinding) sends its own name,
// and is turned away before it could use a cookie or a token.
func (d *Daemon) loopbackHost(hostport string) bool {
	_, port, err := net.SplitHostPort(d.httpAddr)
	if err != nil {
		return false
	}
	h, p, err := net.SplitHostPort(hostport)
	if err != nil || p != port {
		return false
	}
	switch strings.ToLower(h) {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return false
}
