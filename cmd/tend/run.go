package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/api"
)

func init() { addCommand(newRunCommand) }

func newRunCommand(g *globalOptions) *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "run NAME",
		Short: "Run a watcher now, with what changed since its last run",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withClient(func(ctx context.Context, c *api.Client) error {
				r, err := c.Run(ctx, args[0], dryRun)
				if err != nil {
					return err
				}
				fmt.Fprintf(os.Stdout, "started run %s; follow it with `tend history %s`\n", r.RunID, args[0])
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "let the model plan without touching the folder")
	return cmd
}
