package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

func init() { addCommand(newEditCommand) }

func newEditCommand(g *globalOptions) *cobra.Command {
	var f watcherFlags
	var path string
	var enable, disable bool
	cmd := &cobra.Command{
		Use:   "edit NAME [flags]",
		Short: "Change a watcher (only the flags given change; --no-X removes X)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext()
			defer cancel()
			if enable && disable {
				return fmt.Errorf("--enable and --disable contradict each other: give one")
			}
			p, err := f.patch(cmd)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("path") {
				abs, err := filepath.Abs(path)
				if err != nil {
					return err
				}
				p["path"] = abs
			}
			if enable || disable {
				p["enabled"] = enable
			}
			if len(p) == 0 {
				return fmt.Errorf("nothing to change: give at least one flag (see `tend edit --help`)")
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			v, err := c.Edit(ctx, args[0], p)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stdout, "updated %s\n", v.Definition.Name)
			if _, ok := p["provider"]; ok {
				warnNoKey(cmd.ErrOrStderr(), &v.Definition)
			}
			return nil
		},
	}
	f.register(cmd)
	f.registerRemovals(cmd)
	cmd.Flags().StringVar(&path, "path", "", "move the watcher to another folder, `PATH`")
	cmd.Flags().BoolVar(&enable, "enable", false, "enable the watcher")
	cmd.Flags().BoolVar(&disable, "disable", false, "disable the watcher")
	return cmd
}
