package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/runner"
	"github.com/tend-agent/tend/watchers"
)

func init() { addCommand(newHistoryCommand) }

type historyOptions struct {
	asJSON bool
	runID  string
}

func newHistoryCommand(g *globalOptions) *cobra.Command {
	var o historyOptions
	cmd := &cobra.Command{
		Use:   "history NAME",
		Short: "Print a watcher's chat session: runs, messages, tool calls, ledger",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext()
			defer cancel()
			return runHistory(ctx, g, args[0], o, os.Stdout)
		},
	}
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print the runs as JSON")
	cmd.Flags().StringVar(&o.runID, "run", "", "only the run with this `ID`")
	return cmd
}

// runHistory reads the session file directly, so history is readable
// with no daemon running.
func runHistory(ctx context.Context, g *globalOptions, ref string, o historyOptions, out io.Writer) error {
	h, err := g.resolveHome()
	if err != nil {
		return err
	}
	defs, _ := (&watchers.Store{Dir: h.Watchers()}).LoadAll()
	def, err := watchers.Find(defs, ref)
	if err != nil {
		return err
	}
	runs, err := dispatch.ReadHistoryWarn(h.Session(def.ID), func(msg string) {
		fmt.Fprintln(os.Stderr, "tend: warning:", msg)
	})
	if err != nil {
		return err
	}
	if o.runID != "" {
		r, ok := dispatch.FindRun(runs, o.runID)
		if !ok {
			return fmt.Errorf("watcher %s has no run %q: see `tend history %s`", def.Name, o.runID, def.Name)
		}
		runs = []dispatch.Run{r}
	}
	if o.asJSON {
		// The API's shape (camelCase keys), oldest run first as printed.
		views := make([]runner.RunView, 0, len(runs))
		for _, r := range runs {
			views = append(views, runner.RunView{ID: r.ID, Start: r.Start, End: r.End, Records: r.Records})
		}
		return printJSON(out, views)
	}
	if len(runs) == 0 {
		fmt.Fprintf(out, "%s has not run yet\n", def.Name)
		return nil
	}
	dispatch.FormatHistory(out, runs, o.runID)
	return nil
}
