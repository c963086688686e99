//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/godbus/dbus/v5"
)

// waitForHost returns once a tray host can show the icon: a session bus
// answers and a StatusNotifierWatcher owns its name. With no bus it
// returns ErrNoTray at once; with a bus but no host yet (no panel) it
// says so once and waits for one to appear, since fyne.io/systray only
// complains loudly when it cannot register.
func waitForHost(ctx context.Context, log *slog.Logger) error {
	addr, err := sessionBusAddress(realBusEnv())
	if err != nil {
		return err
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		return fmt.Errorf("%w: the session bus at %s does not answer: %v", ErrNoTray, addr, err)
	}
	defer conn.Close()
	// fyne.io/systray connects with dbus.SessionBus(), which reads this.
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		os.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	}
	if err := conn.AddMatchSignalContext(ctx,
		dbus.WithMatchObjectPath("/org/freedesktop/DBus"),
		dbus.WithMatchInterface("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, watcherName),
	); err != nil {
		return fmt.Errorf("%w: watching the session bus: %v", ErrNoTray, err)
	}
	sig := make(chan *dbus.Signal, 8)
	conn.Signal(sig)
	defer conn.RemoveSignal(sig)
	var has bool
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, watcherName).Store(&has); err != nil {
		return fmt.Errorf("%w: asking the session bus for a tray host: %v", ErrNoTray, err)
	}
	if has {
		return nil
	}
	log.Info("tray: no tray host on the session bus yet (no StatusNotifierWatcher); the icon appears when a panel that shows tray icons starts")
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case s, ok := <-sig:
			if !ok {
				return fmt.Errorf("%w: the session bus closed", ErrNoTray)
			}
			if len(s.Body) == 3 {
				if owner, _ := s.Body[2].(string); owner != "" {
					return nil
				}
			}
		}
	}
}
