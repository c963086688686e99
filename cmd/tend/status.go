package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/api"
)

func init() { addCommand(newStatusCommand) }

func newStatusCommand(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether the daemon runs and what each watcher is doing (exit 1 when no daemon answers)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext()
			defer cancel()
			return runStatus(ctx, g, asJSON, os.Stdout)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func runStatus(ctx context.Context, g *globalOptions, asJSON bool, out io.Writer) error {
	c, err := g.client()
	if err != nil {
		return err
	}
	s, err := c.Status(ctx)
	if errors.Is(err, api.ErrNoDaemon) {
		if asJSON {
			printJSON(out, map[string]any{"running": false})
		}
		return &exitError{code: 1, msg: err.Error()}
	}
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(out, s)
	}
	fmt.Fprintf(out, "daemon running (pid %d, %s), home %s\n", s.PID, s.Version, s.Home)
	if s.HTTP != "" {
		fmt.Fprintf(out, "history viewer: %s (`tend open`)\n", s.HTTP)
	}
	fmt.Fprintf(out, "runs going: %d of %d\n", s.Running, s.MaxRuns)
	for _, p := range s.Problems {
		fmt.Fprintf(out, "problem: %s\n", p)
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATUS\tWATCH\tFIRES\tDETAIL")
	for _, v := range s.Watchers {
		st := v.State
		detail := st.Reason
		if st.WatchReason != "" {
			detail = joinDetail(detail, st.WatchReason)
		}
		for _, sk := range st.Skipped {
			detail = joinDetail(detail, "skipped "+sk)
		}
		if st.PendingCount > 0 && !strings.Contains(detail, "pending") {
			detail = joinDetail(detail, fmt.Sprintf("%d change(s) pending", st.PendingCount))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", v.Definition.Name, st.Phase, st.WatchMode, st.FireCount, detail)
	}
	return tw.Flush()
}

func joinDetail(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
