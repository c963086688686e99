package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commandsOf lists c and every command under it, cobra's own (help and
// completion) left out.
func commandsOf(c *cobra.Command) []*cobra.Command {
	if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
		return nil
	}
	all := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		all = append(all, commandsOf(sub)...)
	}
	return all
}

// helpOf renders `tend ARGS... --help` on a fresh command tree.
func helpOf(t *testing.T, args []string) string {
	t.Helper()
	root := newRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append(args, "--help"))
	if err := root.Execute(); err != nil {
		t.Fatalf("tend %s --help: %v", strings.Join(args, " "), err)
	}
	return out.String()
}

// TestHelpGolden keeps every command's help in one golden file, so a
// change to any of them shows up in review (`go test ./cmd/tend -update`).
func TestHelpGolden(t *testing.T) {
	root := newRootCommand()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var b strings.Builder
	for _, c := range commandsOf(root) {
		args := strings.Fields(c.CommandPath())[1:]
		b.WriteString("=== " + c.CommandPath() + " --help\n")
		b.WriteString(helpOf(t, args))
		b.WriteString("\n")
	}
	golden(t, "help", b.String())
}

// TestEveryCommandHasExample: each command's help shows how it is used.
func TestEveryCommandHasExample(t *testing.T) {
	for _, c := range commandsOf(newRootCommand()) {
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no Example", c.CommandPath())
		}
	}
}

// TestFlagValueNames: cobra takes the first backquoted word of a usage
// string as the value's name; a usage that quotes a whole command turns
// it into nonsense like "--run tend history NAME".
func TestFlagValueNames(t *testing.T) {
	for _, c := range commandsOf(newRootCommand()) {
		c.Flags().VisitAll(func(f *pflagFlag) {
			name, _ := unquoteUsage(f)
			if strings.ContainsAny(name, " ") {
				t.Errorf("%s --%s shows the value name %q", c.CommandPath(), f.Name, name)
			}
		})
	}
}

type pflagFlag = pflag.Flag

func unquoteUsage(f *pflag.Flag) (string, string) { return pflag.UnquoteUsage(f) }

// TestAddEditFlagsGrouped: every flag of add and edit but --help sits in
// a named group of the help, so none hides under "Other flags".
func TestAddEditFlagsGrouped(t *testing.T) {
	root := newRootCommand()
	for _, name := range []string{"add", "edit"} {
		c, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" && len(f.Annotations[flagGroupAnnotation]) == 0 {
				t.Errorf("tend %s --%s has no flag group: add it to flagGroupOf", name, f.Name)
			}
		})
		help := helpOf(t, []string{name})
		for _, g := range flagGroupOrder[:6] {
			if !strings.Contains(help, "\n"+g+":\n") {
				t.Errorf("tend %s --help has no %q group:\n%s", name, g, help)
			}
		}
	}
}
