package daemon_test

import (
	"log/slog"
	"net"
	"net/http"
	"testing"

	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/daemon/daemontest"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/internal/testutil"
)

// A page on any web site can point a name it controls at 127.0.0.1 (DNS
// rebinding) and then talk to the viewer as a same-origin page. Only the
// loopback names the viewer is really reached by may pass.
func TestViewerRefusesForeignHostHeaders(t *testing.T) {
	h := home.Home{Dir: t.TempDir()}
	d, _ := daemontest.Start(t, daemon.Config{Home: h, Runner: &testutil.Runner{}, Log: slog.New(slog.DiscardHandler), HTTPAddr: "127.0.0.1:0"})
	tok, err := daemon.LoadToken(h.Token())
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(d.HTTPAddr())
	tests := []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:" + port, true},
		{"localhost:" + port, true},
		{"LOCALHOST:" + port, true},
		{"[::1]:" + port, true},
		{"evil.example:" + port, false},
		{"evil.example", false},
		{"127.0.0.1", false},
		{"127.0.0.1:1", false},
		{"localhost.evil.example:" + port, false},
	}
	for _, tc := range tests {
		req, err := http.NewRequest("GET", "http://"+d.HTTPAddr()+"/v1/watchers", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = tc.host
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("Host %q: %v", tc.host, err)
		}
		resp.Body.Close()
		if tc.ok && resp.StatusCode != http.StatusOK {
			t.Errorf("Host %q: %s, want 200", tc.host, resp.Status)
		}
		if !tc.ok && resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("Host %q: %s, want 421 Misdirected Request", tc.host, resp.Status)
		}
	}
}
