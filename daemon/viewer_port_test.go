package daemon_test

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/daemon/daemontest"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/internal/testutil"
	"github.com/tend-agent/tend/watchers"
)

// The watchers do not depend on the viewer: with its port taken the
// daemon starts, watches and runs, and status says why the viewer is off.
func TestDaemonRunsWhenViewerPortTaken(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	h := &dh{t: t, home: home.Home{Dir: testutil.ShortTempDir(t)}, run: &testutil.Runner{}}
	d, _ := daemontest.Start(t, daemon.Config{Home: h.home, Runner: h.run, Log: slog.New(slog.DiscardHandler), HTTPAddr: addr})
	h.ctx = context.Background()
	h.c = api.NewClient(h.home.Socket())
	if d.HTTPAddr() != "" {
		t.Errorf("HTTPAddr is %q with the port taken, want empty", d.HTTPAddr())
	}

	dir := t.TempDir()
	h.add("works", dir, nil)
	h.waitPhase("works", watchers.PhaseIdle)
	testutil.Write(t, dir, "new.txt", "n")
	h.waitRun("works", 1)

	st := h.status()
	if st.HTTP != "" {
		t.Errorf("status reports a viewer at %q", st.HTTP)
	}
	found := false
	for _, p := range st.Problems {
		if strings.Contains(p, "history viewer off") && strings.Contains(p, addr) && strings.Contains(p, "--http") {
			found = true
		}
	}
	if !found {
		t.Errorf("status problems %q; want one saying the viewer is off, naming %s and --http", st.Problems, addr)
	}
}
