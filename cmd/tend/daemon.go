package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/internal/logfile"
)

func init() { addCommand(newDaemonCommand) }

type daemonOptions struct {
	http    string
	tray    bool
	maxRuns int
	verbose bool
}

func newDaemonCommand(g *globalOptions) *cobra.Command {
	var o daemonOptions
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Run the tend daemon in the foreground (what a service manager starts)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext()
			defer cancel()
			return runDaemon(ctx, g, o)
		},
	}
	cmd.Flags().StringVar(&o.http, "http", "127.0.0.1:7433", "loopback `ADDR` of the history viewer (\"\" turns it off)")
	cmd.Flags().BoolVar(&o.tray, "tray", false, "also show the menu-bar icon")
	cmd.Flags().IntVar(&o.maxRuns, "max-runs", 2, "`N` runs at once across watchers; more wait in a queue")
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "log debug detail")
	return cmd
}

func runDaemon(ctx context.Context, g *globalOptions, o daemonOptions) error {
	h, err := g.resolveHome()
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if o.verbose {
		level = slog.LevelDebug
	}
	// The log goes to standard error (the journal, launchd's log file, a
	// terminal) and to TEND_HOME/tend.log, which `tend logs` reads: a
	// Tend.app started from Finder has no standard error anyone sees.
	if err := os.MkdirAll(h.Dir, 0o700); err != nil {
		return fmt.Errorf("creating TEND_HOME %s: %w", h.Dir, err)
	}
	lf, err := logfile.Open(logPath(h), logfile.DefaultMaxBytes, os.Stderr)
	if err != nil {
		return err
	}
	defer lf.Close()
	logOut := io.MultiWriter(lf, os.Stderr) // the file first: it never fails
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))
	cfg, err := daemonConfig(h, log, o)
	if err != nil {
		return err
	}
	d := daemon.New(cfg)
	ready := func() {
		fmt.Fprintf(logOut, "tend daemon: home %s, socket %s\n", h.Dir, h.Socket())
		if addr := d.HTTPAddr(); addr != "" {
			fmt.Fprintf(logOut, "tend daemon: history viewer on http://%s/ (`tend open` prints the link with its token)\n", addr)
		}
		if o.tray {
			go startTray(ctx, h, log)
		}
	}
	return d.Run(ctx, ready)
}

// logPath is the daemon's log file, TEND_HOME/tend.log (rotated to
// tend.log.1).
func logPath(h home.Home) string { return filepath.Join(h.Dir, "tend.log") }
