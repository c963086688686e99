package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/api"
)

func init() { addCommand(newRmCommand) }

func newRmCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:     "rm NAME",
		Aliases: []string{"remove"},
		Short:   "Remove a watcher (its history stays in TEND_HOME/sessions)",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withClient(func(ctx context.Context, c *api.Client) error {
				if err := c.Remove(ctx, args[0]); err != nil {
					return err
				}
				fmt.Fprintf(os.Stdout, "removed %s\n", args[0])
				return nil
			})
		},
	}
}
