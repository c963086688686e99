package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/api"
)

func init() {
	addCommand(newPauseCommand)
	addCommand(newResumeCommand)
	addCommand(newPanicCommand)
}

func newPauseCommand(g *globalOptions) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "pause NAME | --all",
		Short: "Pause a watcher (a run in flight is cancelled)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return eachOrAll(g, args, all, "paused",
				func(ctx context.Context, c *api.Client) error { return c.PauseAll(ctx) },
				func(ctx context.Context, c *api.Client, ref string) error { return c.Pause(ctx, ref) })
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "every watcher")
	return cmd
}

func newResumeCommand(g *globalOptions) *cobra.Command {
	var all, reset, forget bool
	cmd := &cobra.Command{
		Use:   "resume NAME | --all",
		Short: "Resume a paused, exhausted or failed watcher",
		Long: `Resume a paused, exhausted or failed watcher. The changes it has not
handled yet (while paused, or from failed or stopped runs) are dispatched
now; with --forget they are dismissed instead and the folder as it is now
becomes the starting point.`,
		Example: `  tend resume downloads
  tend resume downloads --forget   # drop what is pending, start from the folder as it is
  tend resume downloads --reset    # after maxFires: start counting again`,
		RunE: func(cmd *cobra.Command, args []string) error {
			verb := "resumed"
			if forget {
				verb = "resumed; pending changes dismissed"
				if all {
					return fmt.Errorf("--forget works on named watchers only: name them, e.g. `tend resume NAME --forget`")
				}
			}
			return eachOrAll(g, args, all, verb,
				func(ctx context.Context, c *api.Client) error { return c.ResumeAll(ctx) },
				func(ctx context.Context, c *api.Client, ref string) error {
					return c.Resume(ctx, ref, api.ResumeRequest{Reset: reset, Forget: forget})
				})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "every watcher")
	cmd.Flags().BoolVar(&reset, "reset", false, "also reset the fire count (after maxFires)")
	cmd.Flags().BoolVar(&forget, "forget", false, "dismiss the pending changes instead of dispatching them")
	return cmd
}

func newPanicCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "panic",
		Short: "Pause every watcher and cancel every run in flight, at once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withClient(func(ctx context.Context, c *api.Client) error {
				if err := c.Panic(ctx); err != nil {
					return err
				}
				fmt.Println("every watcher is paused and no run is going; `tend resume --all` when ready")
				return nil
			})
		},
	}
}

func eachOrAll(g *globalOptions, args []string, all bool, verb string,
	allFn func(context.Context, *api.Client) error,
	oneFn func(context.Context, *api.Client, string) error) error {
	if all == (len(args) > 0) {
		return fmt.Errorf("name one or more watchers, or give --all")
	}
	return g.withClient(func(ctx context.Context, c *api.Client) error {
		return eachOrAllWith(ctx, c, args, all, verb, allFn, oneFn)
	})
}

func eachOrAllWith(ctx context.Context, c *api.Client, args []string, all bool, verb string,
	allFn func(context.Context, *api.Client) error,
	oneFn func(context.Context, *api.Client, string) error) error {
	if all {
		if err := allFn(ctx, c); err != nil {
			return err
		}
		fmt.Fprintf(os.Stdout, "%s all watchers\n", verb)
		return nil
	}
	for _, ref := range args {
		if err := oneFn(ctx, c, ref); err != nil {
			return err
		}
		fmt.Fprintf(os.Stdout, "%s %s\n", verb, ref)
	}
	return nil
}
