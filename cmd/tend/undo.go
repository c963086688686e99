package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/api"
)

func init() { addCommand(newUndoCommand) }

func newUndoCommand(g *globalOptions) *cobra.Command {
	var runID string
	cmd := &cobra.Command{
		Use:   "undo NAME",
		Short: "Reverse a run (the last one that changed something, or --run ID)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withClient(func(ctx context.Context, c *api.Client) error {
				r, err := c.Undo(ctx, args[0], runID)
				if err != nil {
					return err
				}
				fmt.Fprintf(os.Stdout, "undid run %s: %d change(s) reversed\n", r.RunID, len(r.Restored))
				if len(r.Restored) > 0 {
					fmt.Fprintf(os.Stdout, "  %s\n", strings.Join(r.Restored, "\n  "))
				}
				if len(r.NotUndone) > 0 {
					fmt.Fprintf(os.Stdout, "not undone (the daemon stopped during the run; settle these by hand):\n  %s\n", strings.Join(r.NotUndone, "\n  "))
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&runID, "run", "", "the run to undo (see `tend history NAME`)")
	return cmd
}
