//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/api"
)

type fakeInfo struct {
	fs.FileInfo
	mode fs.FileMode
}

func (f fakeInfo) Mode() fs.FileMode { return f.mode }

func TestSessionBusAddress(t *testing.T) {
	sock := fakeInfo{mode: fs.ModeSocket}
	cases := []struct {
		name  string
		env   map[string]string
		files map[string]fs.FileInfo
		want  string
	}{
		{"from the environment", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/x/bus"}, nil, "unix:path=/x/bus"},
		{"autolaunch is refused", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "autolaunch:"}, nil, ""},
		{"XDG_RUNTIME_DIR socket", map[string]string{"XDG_RUNTIME_DIR": "/rt"}, map[string]fs.FileInfo{"/rt/bus": sock}, "unix:path=/rt/bus"},
		{"systemd user bus", nil, map[string]fs.FileInfo{"/run/user/1000/bus": sock}, "unix:path=/run/user/1000/bus"},
		{"not a socket", nil, map[string]fs.FileInfo{"/run/user/1000/bus": fakeInfo{}}, ""},
		{"nothing", nil, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := busEnv{
				getenv: func(k string) string { return c.env[k] },
				stat: func(p string) (fs.FileInfo, error) {
					if fi, ok := c.files[p]; ok {
						return fi, nil
					}
					return nil, fs.ErrNotExist
				},
				uid: 1000,
			}
			got, err := sessionBusAddress(e)
			if c.want == "" {
				if !errors.Is(err, ErrNoTray) {
					t.Fatalf("got %q, %v; want ErrNoTray", got, err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// TestRunWithoutBus: no session bus answering means one message and a
// return, without touching systray.
func TestRunWithoutBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "no-bus"))
	before := ran.Load()
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := Run(ctx, api.NewClient(filepath.Join(t.TempDir(), "tend.sock")), Options{Log: log})
	if !errors.Is(err, ErrNoTray) {
		t.Fatalf("Run = %v, want ErrNoTray", err)
	}
	if n := strings.Count(logs.String(), "no system tray available (no D-Bus session bus); tend runs on without the menu-bar icon"); n != 1 {
		t.Errorf("said it %d times:\n%s", n, logs.String())
	}
	if ran.Load() != before {
		t.Errorf("systray was started")
	}
}
