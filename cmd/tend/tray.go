package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/tray"
)

func init() { addCommand(newTrayCommand) }

func newTrayCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "tray",
		Short: "Show the menu-bar icon beside a running daemon (`tend daemon --tray` starts it with the daemon)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext()
			defer cancel()
			h, err := g.resolveHome()
			if err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(os.Stderr, nil))
			err = tray.Run(ctx, api.NewClient(h.Socket()), trayOptions(ctx, h, log, cancel))
			if errors.Is(err, tray.ErrNoTray) {
				return &exitError{code: 1} // already said once
			}
			return err
		},
	}
}

// trayOptions links the tray to this desktop: the viewer link (as `tend
// open` makes it), the browser and file manager, and what Quit does.
func trayOptions(ctx context.Context, h home.Home, log *slog.Logger, quit func()) tray.Options {
	g := &globalOptions{home: h.Dir}
	return tray.Options{
		ViewerURL:  func() (string, error) { return viewerURL(ctx, g) },
		OpenURL:    desktopOpen,
		OpenFolder: desktopOpen,
		Log:        log,
		OnQuit:     quit,
	}
}

// startTray shows the menu-bar icon for `tend daemon --tray`, once the
// daemon is ready. Quit from the menu stops the daemon (as SIGTERM would).
// With no tray host it has said so once and the daemon runs on. On macOS
// the menu bar needs the main thread, which the daemon holds, so the icon
// runs as a child `tend tray` process that ends with the daemon.
func startTray(ctx context.Context, h home.Home, log *slog.Logger) {
	if runtime.GOOS == "darwin" {
		startTrayProcess(ctx, h, log)
		return
	}
	stopSelf := func() {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Signal(syscall.SIGTERM)
		}
	}
	err := tray.Run(ctx, api.NewClient(h.Socket()), trayOptions(ctx, h, log, stopSelf))
	if err != nil && !errors.Is(err, tray.ErrNoTray) {
		log.Warn("the menu-bar icon stopped", "err", err)
	}
}

func startTrayProcess(ctx context.Context, h home.Home, log *slog.Logger) {
	exe, err := os.Executable()
	if err != nil {
		log.Warn("cannot start the menu-bar icon: run `tend tray` yourself", "err", err)
		return
	}
	cmd := exec.CommandContext(ctx, exe, "--home", h.Dir, "tray")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		log.Warn("cannot start the menu-bar icon: run `tend tray` yourself", "err", err)
		return
	}
	if err := cmd.Wait(); err != nil && ctx.Err() == nil {
		log.Warn("the menu-bar icon stopped", "err", err)
	}
}

// desktopOpen opens a link or a folder with the desktop's opener
// (xdg-open on Linux, open on macOS) and reaps it in the background.
func desktopOpen(target string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	cmd := exec.Command(name, target)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("opening %s with %s: %w (install xdg-utils, or open it yourself)", target, name, err)
	}
	go cmd.Wait()
	return nil
}
