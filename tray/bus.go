package tray

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// ErrNoTray means there is nothing to show an icon in: on Linux, no D-Bus
// session bus answers. The daemon runs on without the icon.
var ErrNoTray = errors.New("no system tray available")

// NoTrayMessage is said once when there is no tray host.
const NoTrayMessage = "no system tray available (no D-Bus session bus); tend runs on without the menu-bar icon"

// watcherName is the bus name of the StatusNotifierItem host registry.
const watcherName = "org.kde.StatusNotifierWatcher"

// busEnv is what finding the session bus reads of the system.
type busEnv struct {
	getenv func(string) string
	stat   func(string) (os.FileInfo, error)
	uid    int
}

func realBusEnv() busEnv { return busEnv{getenv: os.Getenv, stat: os.Stat, uid: os.Getuid()} }

// sessionBusAddress finds the session bus without ever starting one:
// DBUS_SESSION_BUS_ADDRESS, else the systemd user bus socket
// ($XDG_RUNTIME_DIR/bus, or /run/user/UID/bus) when it exists.
// ("autolaunch:" is refused: it would spawn a bus daemon.)
func sessionBusAddress(e busEnv) (string, error) {
	if a := e.getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return a, nil
	}
	dirs := []string{}
	if d := e.getenv("XDG_RUNTIME_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	dirs = append(dirs, filepath.Join("/run/user", strconv.Itoa(e.uid)))
	for _, d := range dirs {
		p := filepath.Join(d, "bus")
		if fi, err := e.stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + p, nil
		}
	}
	return "", fmt.Errorf("%w: DBUS_SESSION_BUS_ADDRESS is not set and no user bus socket exists", ErrNoTray)
}
