package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/daemon"
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
	cmd.Flags().StringVar(&o.http, "http", "127.0.0.1:7433", "loopback address of the history viewer (\"\" turns it off)")
	cmd.Flags().BoolVar(&o.tray, "tray", false, "also show the menu-bar icon")
	cmd.Flags().IntVar(&o.maxRuns, "max-runs", 2, "runs at once across watchers; more wait in a queue")
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
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	cfg, err := daemonConfig(h, log, o)
	if err != nil {
		return err
	}
	d := daemon.New(cfg)
	ready := func() {
		fmt.Fprintf(os.Stderr, "tend daemon: home %s, socket %s\n", h.Dir, h.Socket())
		if addr := d.HTTPAddr(); addr != "" {
			fmt.Fprintf(os.Stderr, "tend daemon: history viewer on http://%s/ (`tend open` prints the link with its token)\n", addr)
		}
		if o.tray {
			go startTray(ctx, h, log)
		}
	}
	return d.Run(ctx, ready)
}
