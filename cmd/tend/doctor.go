package main

import (
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/doctor"
)

func init() { addCommand(newDoctorCommand) }

func newDoctorCommand(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor [--json]",
		Short: "Check what tend needs (inotify limits, model server, keyring, service, daemon) and say how to fix each problem; exit 1 on a failure",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext()
			defer cancel()
			h, err := g.resolveHome()
			if err != nil {
				return err
			}
			// Provider and keyring notes would interleave with the report.
			quiet := slog.New(slog.DiscardHandler)
			rep := doctor.Run(ctx, doctor.System(h, version, quiet))
			if asJSON {
				err = rep.WriteJSON(os.Stdout)
			} else {
				err = rep.WriteText(os.Stdout)
			}
			if err != nil {
				return err
			}
			if rep.Failed() {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
