package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func init() { addCommand(newListCommand) }

func newListCommand(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List watchers with their state",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext()
			defer cancel()
			return runList(ctx, g, asJSON, os.Stdout)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func runList(ctx context.Context, g *globalOptions, asJSON bool, out io.Writer) error {
	c, err := g.client()
	if err != nil {
		return err
	}
	views, err := c.List(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(out, views)
	}
	if len(views) == 0 {
		fmt.Fprintln(out, "no watchers yet: add one with `tend add PATH --name N --instructions TEXT`")
		return nil
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATUS\tFIRES\tPENDING\tPATH")
	for _, v := range views {
		path := v.Definition.Path
		if path == "" {
			path = "(template)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", v.Definition.Name, v.State.Phase, v.State.FireCount, v.State.PendingCount, path)
	}
	return tw.Flush()
}
