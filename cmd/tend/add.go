package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/watchers"
)

func init() { addCommand(newAddCommand) }

func newAddCommand(g *globalOptions) *cobra.Command {
	var f watcherFlags
	cmd := &cobra.Command{
		Use:   "add PATH --name N --instructions TEXT",
		Short: "Watch a folder with plain-language instructions (no PATH with --template: a template)",
		Long: `Watch a folder with plain-language instructions (no PATH with --template: a template).

The model works on the folder with file tools and is treated as untrusted:
a watcher on / or on TEND_HOME (or a folder inside it) is refused, and a
folder that holds TEND_HOME or the tend program is watched with them left
out. A --check script that lies inside the folder is copied into
TEND_HOME/checks when the watcher is added (and again by ` + "`tend edit --check`" + `);
the copy runs, with the command's other arguments, so nothing the model
writes in the folder is ever run as the check.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext()
			defer cancel()
			path := ""
			if len(args) == 1 {
				path = args[0]
			} else if !f.template {
				return fmt.Errorf("give the folder to watch: tend add PATH --name N --instructions TEXT (or --template for a template)")
			}
			return runAdd(ctx, g, cmd, &f, path, os.Stdout)
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&f.template, "template", false, "make a template (no folder); attach it later with tend attach")
	return cmd
}

func runAdd(ctx context.Context, g *globalOptions, cmd *cobra.Command, f *watcherFlags, path string, out io.Writer) error {
	if f.name == "" {
		return fmt.Errorf("--name is required")
	}
	if path != "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		path = abs
	}
	if err := f.needTail(cmd.Flags().Changed); err != nil {
		return err
	}
	p, err := f.patch(cmd)
	if err != nil {
		return err
	}
	def := watchers.Definition{Path: path, Enabled: path != "", Recursive: true, SettleSeconds: watchers.DefaultSettleSeconds}
	if err := applyPatch(&def, p); err != nil {
		return err
	}
	c, err := g.client()
	if err != nil {
		return err
	}
	v, err := c.Add(ctx, api.AddRequest{Definition: def})
	if err != nil {
		return err
	}
	d := v.Definition
	warnNoKey(cmd.ErrOrStderr(), &d)
	if d.IsTemplate() {
		fmt.Fprintf(out, "template %s added (id %s); attach it with `tend attach %s PATH`\n", d.Name, d.ID, d.Name)
		return nil
	}
	w, _ := d.Tier()
	fmt.Fprintf(out, "watching %s as %s (id %s, %s: %s after the last change)\n", d.Path, d.Name, d.ID, d.Responsiveness, w)
	if st, ok := waitBaseline(ctx, c, d.ID); ok {
		fmt.Fprintf(out, "baseline taken: %s, %s; changes from now on wake the watcher\n", plural(st.Files, "file"), plural(st.Dirs, "folder"))
	}
	return nil
}

// waitBaseline waits (at most a minute) for a new watcher to take its
// baseline, so that what a person does right after `tend add` counts as
// a change rather than as the starting point.
func waitBaseline(ctx context.Context, c *api.Client, id string) (watchers.State, bool) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		v, err := c.Get(ctx, id)
		if err != nil {
			return watchers.State{}, false
		}
		switch v.State.Phase {
		case watchers.PhaseStarting:
		case watchers.PhaseError, watchers.PhasePaused:
			return v.State, false
		default:
			return v.State, true
		}
		select {
		case <-ctx.Done():
			return watchers.State{}, false
		case <-time.After(20 * time.Millisecond):
		}
	}
}
