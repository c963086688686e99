package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/packaging"
)

func init() { addCommand(newServiceCommand) }

func newServiceCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Install, remove or inspect tend as a login service (systemd user unit or launchd agent)",
		Long: "On Linux `tend service install` writes a systemd user unit\n" +
			"(~/.config/systemd/user/tend.service) and enables it with systemctl --user; on macOS\n" +
			"it writes a launchd agent (~/Library/LaunchAgents/" + packaging.BundleID + ".plist) and loads it\n" +
			"with launchctl. The service runs this binary's real path with `daemon` (on macOS\n" +
			"`daemon --tray`; on Linux an XDG autostart entry starts `tend tray` in the desktop\n" +
			"session). It keeps " + strings.Join(packaging.ServiceEnvNames, ", ") + "\n" +
			"as they are when you install (Linux: in TEND_HOME/" + packaging.EnvFileName + ").\n" +
			"Uninstalling keeps the watchers and their history.",
	}
	var installNoStart, uninstallNoStart bool
	install := &cobra.Command{
		Use:   "install",
		Short: "Install and start tend as a service that starts at login",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := serviceManager()
			if err != nil {
				return err
			}
			bin, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding this binary: %w", err)
			}
			if bin, err = filepath.EvalSymlinks(bin); err != nil {
				return fmt.Errorf("resolving this binary: %w", err)
			}
			h, err := g.resolveHome()
			if err != nil {
				return err
			}
			res, err := m.Install(serviceCtx(cmd), packaging.InstallOptions{
				Binary: bin, NoStart: installNoStart, Home: servicePinnedHome(g),
				Env: packaging.CaptureEnv(os.Getenv), EnvDir: h.Dir,
			})
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), res.Message)
			if os.Getenv(dispatch.EnvAPIKey) != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %s is not copied into the service (keys are never written to a file); store it with `tend key set openai`\n", dispatch.EnvAPIKey)
			}
			return nil
		},
	}
	install.Flags().BoolVar(&installNoStart, "no-start", false, "write the unit or plist without asking the service manager to start it")

	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Stop the service and remove it (watchers and history are kept)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := serviceManager()
			if err != nil {
				return err
			}
			res, err := m.Uninstall(serviceCtx(cmd), packaging.UninstallOptions{NoStart: uninstallNoStart})
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), res.Message)
			return nil
		},
	}
	uninstall.Flags().BoolVar(&uninstallNoStart, "no-start", false, "remove the unit or plist without asking the service manager to stop it")

	status := &cobra.Command{
		Use:   "status",
		Short: "Show whether the service is installed, which binary it runs, and whether it is running",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := serviceManager()
			if err != nil {
				return err
			}
			st, err := m.Status(serviceCtx(cmd))
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), st.Summary())
			return nil
		},
	}
	cmd.AddCommand(install, uninstall, status)
	return cmd
}

func serviceManager() (packaging.Manager, error) {
	env, err := packaging.SystemEnv()
	if err != nil {
		return nil, err
	}
	return packaging.NewManager(runtime.GOOS, env), nil
}

// servicePinnedHome is the TEND_HOME the service should pin: --home, else
// $TEND_HOME, else none (the daemon then uses its default).
func servicePinnedHome(g *globalOptions) string {
	if g.home != "" {
		return g.home
	}
	return os.Getenv("TEND_HOME")
}

func serviceCtx(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
