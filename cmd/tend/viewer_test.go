package main

import (
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/daemon/daemontest"
	"github.com/tend-agent/tend/internal/home"
)

// With the viewer's port taken, `tend status` and `tend open` say why
// the viewer is off; the daemon itself runs.
func TestCLIViewerPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	h := home.Home{Dir: t.TempDir()}
	daemontest.Start(t, daemon.Config{Home: h, Runner: cliRunner{h}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		HTTPAddr: ln.Addr().String(), Version: "test"})
	g := &globalOptions{home: h.Dir}
	out, err := run(t, g, "status")
	if err != nil || !strings.Contains(out, "problem: history viewer off: cannot listen on "+ln.Addr().String()) {
		t.Errorf("tend status: %v\n%s\nwant a problem line saying the viewer is off", err, out)
	}
	if _, err := run(t, g, "open", "--print"); err == nil || !strings.Contains(err.Error(), "history viewer off") {
		t.Errorf("tend open: %v; want the reason the viewer is off", err)
	}
}
