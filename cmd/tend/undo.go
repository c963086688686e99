package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/internal/safetext"
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
				for _, p := range r.Restored {
					fmt.Fprintf(os.Stdout, "  %s\n", safetext.Name(p))
				}
				for _, n := range r.Notes {
					fmt.Fprintf(os.Stdout, "note: %s\n", safetext.Line(n))
				}
				if len(r.NotUndone) > 0 {
					fmt.Fprintln(os.Stdout, "not undone (the daemon stopped during the run; settle these by hand):")
					for _, n := range r.NotUndone {
						fmt.Fprintf(os.Stdout, "  %s\n", safetext.Line(n))
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&runID, "run", "", "the `ID` of the run to undo (tend history NAME lists them)")
	return cmd
}
