package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/api"
)

func init() {
	addCommand(newAttachCommand)
	addCommand(newDetachCommand)
}

func newAttachCommand(g *globalOptions) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "attach TEMPLATE PATH",
		Short: "Make an active watcher of a template for a folder",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := filepath.Abs(args[1])
			if err != nil {
				return err
			}
			return g.withClient(func(ctx context.Context, c *api.Client) error {
				v, err := c.Attach(ctx, api.AttachRequest{Template: args[0], Path: path, Name: name})
				if err != nil {
					return err
				}
				fmt.Fprintf(os.Stdout, "watching %s as %s (from template %s)\n", v.Definition.Path, v.Definition.Name, args[0])
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "`NAME` of the new watcher (default TEMPLATE-N)")
	return cmd
}

func newDetachCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "detach NAME",
		Short: "Unlink a watcher from its template; it stays as a paused copy with its fire count reset",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withClient(func(ctx context.Context, c *api.Client) error {
				v, err := c.Detach(ctx, args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(os.Stdout, "%s is detached and paused; `tend resume %s` to run it\n", v.Definition.Name, v.Definition.Name)
				return nil
			})
		},
	}
}
