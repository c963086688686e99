package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/watchers"
)

func init() { addCommand(newShowCommand) }

func newShowCommand(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show one watcher's definition and state",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext()
			defer cancel()
			return runShow(ctx, g, args[0], asJSON, os.Stdout)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func runShow(ctx context.Context, g *globalOptions, ref string, asJSON bool, out io.Writer) error {
	c, err := g.client()
	if err != nil {
		return err
	}
	v, err := c.Get(ctx, ref)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(out, v)
	}
	writeView(out, v)
	return nil
}

// writeView prints a watcher as aligned "key: value" lines; fields that
// are not set are left out.
func writeView(out io.Writer, v api.View) {
	d, s := v.Definition, v.State
	tw := tabwriter.NewWriter(out, 2, 4, 1, ' ', 0)
	line := func(k, val string) {
		if val != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", k, val)
		}
	}
	when := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.Local().Format(time.RFC3339)
	}
	line("name", d.Name)
	line("id", d.ID)
	path := d.Path
	if path == "" {
		path = "(template: attach it with `tend attach " + d.Name + " PATH`)"
	}
	line("path", path)
	line("template", d.TemplateID)
	line("status", string(s.Phase))
	line("reason", s.Reason)
	line("instructions", d.Instructions)
	w, mw := d.Tier()
	line("responsiveness", fmt.Sprintf("%s (%s quiet, at most %s)", d.Responsiveness, w, mw))
	line("recursive", fmt.Sprint(d.Recursive))
	line("hidden", fmt.Sprint(d.IncludeHidden))
	line("ignore", strings.Join(d.Ignore, ", "))
	line("include", strings.Join(d.Include, ", "))
	line("exclude", strings.Join(d.Exclude, ", "))
	model := d.Provider.Model
	if model == "" {
		model = "(auto)"
	}
	line("provider", strings.TrimSpace(fmt.Sprintf("%s %s %s", d.Provider.Kind, model, d.Provider.BaseURL)))
	line("settle", fmt.Sprintf("%ds", d.SettleSeconds))
	line("max iterations", fmt.Sprint(d.MaxIterations))
	if d.DryRun {
		line("dry run", "yes")
	}
	line("guards", guardLine(d.Guards.CooldownSeconds, d.Guards.BurstThreshold, d.Guards.BurstWindowSeconds, d.Guards.MaxFires))
	line("schedule", d.Schedule)
	line("next due", when(s.NextDue))
	line("check", d.Check)
	if d.Tail != nil {
		line("tail", fmt.Sprintf("%s ok=%q fail=%q silence=%ds", d.Tail.File, d.Tail.OKPattern, d.Tail.FailPattern, d.Tail.SilenceSeconds))
	}
	line("skill", d.Skill)
	if s.WatchMode != "" {
		line("watching with", strings.TrimSpace(s.WatchMode+" "+s.WatchReason))
	}
	line("fingerprint", fmt.Sprintf("%s (%d files, %d folders)", s.BaselineRoot, s.Files, s.Dirs))
	line("fires", fmt.Sprint(s.FireCount))
	line("pending", pendingLine(s, d.Name))
	if len(s.Queued) > 0 {
		line("queued triggers", strings.Join(s.Queued, ", "))
	}
	line("last run", strings.TrimSpace(when(s.LastRunEnd)+" "+s.LastOutcome+" "+s.LastRunID))
	for _, sk := range s.Skipped {
		line("skipped", sk)
	}
	line("created", when(d.CreatedAt))
	line("updated", when(d.UpdatedAt))
	tw.Flush()
}

func guardLine(cool, burst, window, maxFires int) string {
	if cool == 0 {
		cool = 10
	}
	if burst == 0 {
		burst = 5
	}
	if window == 0 {
		window = 60
	}
	s := fmt.Sprintf("cooldown %ds, pause after more than %d runs in %ds", cool, burst, window)
	if maxFires > 0 {
		s += fmt.Sprintf(", at most %d runs", maxFires)
	}
	return s
}

// pendingLine says how many changes wait for a run, naming the first few.
func pendingLine(s watchers.State, name string) string {
	if s.PendingCount == 0 {
		return "none"
	}
	var names []string
	for i, c := range s.Pending {
		if i == 3 {
			break
		}
		names = append(names, c.Path+" ("+c.Kind+")")
	}
	out := fmt.Sprintf("%d change(s): %s", s.PendingCount, strings.Join(names, ", "))
	if s.PendingCount > len(names) {
		out += ", …"
	}
	return out + " (`tend resume " + name + " --forget` dismisses them)"
}
