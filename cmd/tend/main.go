// Command tend is the folder-automation agent: the daemon and the CLI that
// talks to it over its local API.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/tend-agent/tend/content"
)

// commandConstructors is filled by each command file's init, so every
// command lives in a file of its own (restic's newXCommand pattern).
var commandConstructors []func(*globalOptions) *cobra.Command

func addCommand(f func(*globalOptions) *cobra.Command) {
	commandConstructors = append(commandConstructors, f)
}

// globalOptions are the flags every command shares.
type globalOptions struct {
	home string // TEND_HOME; empty means the default
}

func newRootCommand() *cobra.Command {
	g := &globalOptions{}
	root := &cobra.Command{
		Use:           "tend",
		Short:         "tend watches folders and lets a language model keep them in order",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       currentStamp().String(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().BoolP("version", "v", false, "print the version and the commit tend was built from (as tend version)")
	root.PersistentFlags().StringVar(&g.home, "home", "", "tend's home folder `DIR` (default $TEND_HOME or the user config dir)")
	for _, f := range commandConstructors {
		root.AddCommand(f(g))
	}
	addExamples(root)
	groupFlags(root)
	addCompletions(root, g)
	return root
}

// exitError carries a specific exit code for a command that wants one
// (for example `tend status` when no daemon answers).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func main() {
	// The daemon reads documents in a child: this binary started again
	// with content.EnvExtract set. It must answer before anything else.
	content.RunChildIfAsked()
	root := newRootCommand()
	if exe, err := os.Executable(); err == nil {
		root.SetArgs(bundleArgs(os.Args[1:], exe))
	}
	err := root.Execute()
	if err == nil {
		return
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(os.Stderr, "tend:", ee.msg)
		}
		os.Exit(ee.code)
	}
	fmt.Fprintln(os.Stderr, "tend:", err)
	os.Exit(1)
}
