package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/api"
)

func init() { addCommand(newRunCommand) }

func newRunCommand(g *globalOptions) *cobra.Command {
	var dryRun, follow bool
	cmd := &cobra.Command{
		Use:   "run NAME",
		Short: "Run a watcher now, with what changed since its last run",
		Long: `Run a watcher now, with what changed since its last run. With --follow
the run's messages and tool calls are printed as they happen, and tend
exits 1 when the run does not end well (failed, timeout, stopped).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withClient(func(ctx context.Context, c *api.Client) error {
				r, err := c.Run(ctx, args[0], dryRun)
				if err != nil {
					return err
				}
				if !follow {
					fmt.Fprintf(cmd.OutOrStdout(), "started run %s; follow it with `tend history %s`\n", r.RunID, args[0])
					return nil
				}
				if r.RunID == "" {
					return errNoRunID
				}
				v, err := c.Get(ctx, args[0])
				if err != nil {
					return err
				}
				h, err := g.resolveHome()
				if err != nil {
					return err
				}
				return followRun(ctx, c, h, &v.Definition, r.RunID, cmd.OutOrStdout())
			})
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "let the model plan without touching the folder")
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "print the run's messages and tool calls until it ends; exit 1 if it fails")
	return cmd
}
