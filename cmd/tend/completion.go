package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/watchers"
)

// Shell completion reads TEND_HOME directly (watcher files and session
// files), so it works with no daemon running and never waits on one.

// nameKind says which watchers a command's NAME argument accepts.
type nameKind int

const (
	anyWatcher    nameKind = iota
	activeWatcher          // not a template: it has a folder
	templateOnly
)

// completionArgs says what each command takes as positional arguments.
var completionArgs = map[string]nameKind{
	"show": anyWatcher, "edit": anyWatcher, "rm": anyWatcher, "history": anyWatcher,
	"run": activeWatcher, "undo": activeWatcher, "pause": activeWatcher, "resume": activeWatcher,
	"detach": activeWatcher,
}

// addCompletions attaches dynamic completion to the commands and flags
// that take watcher names, templates, run IDs or a fixed set of values.
func addCompletions(c *cobra.Command, g *globalOptions) {
	if c.ValidArgsFunction == nil {
		switch name := c.Name(); {
		case name == "add" && c.HasParent() && c.Parent() == c.Root():
			c.ValidArgsFunction = folderArgs(1)
		case name == "attach":
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
				if len(args) == 0 {
					return g.watcherNames(templateOnly, prefix)
				}
				return folderArgs(2)(cmd, args, prefix)
			}
		default:
			if kind, ok := completionArgs[name]; ok && c.Parent() == c.Root() {
				c.ValidArgsFunction = func(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
					if len(args) > 0 {
						return nil, cobra.ShellCompDirectiveNoFileComp
					}
					return g.watcherNames(kind, prefix)
				}
			}
		}
	}
	fixed := map[string][]cobra.Completion{
		"provider": {
			cobra.CompletionWithDesc("ollama", "a local Ollama server (OLLAMA_HOST)"),
			cobra.CompletionWithDesc("openai", "any OpenAI-compatible server (--base-url)"),
		},
		"responsiveness": tierCompletions(),
	}
	for flag, values := range fixed {
		if c.Flags().Lookup(flag) != nil {
			c.RegisterFlagCompletionFunc(flag, withPrefix(values))
		}
	}
	if c.Flags().Lookup("run") != nil {
		c.RegisterFlagCompletionFunc("run", func(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return g.runIDs(args[0], prefix)
		})
	}
	for _, sub := range c.Commands() {
		addCompletions(sub, g)
	}
}

// withPrefix completes the values that start with what is typed.
func withPrefix(values []cobra.Completion) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, v := range values {
			if strings.HasPrefix(v, prefix) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// folderArgs completes folders for the first n arguments, then nothing.
func folderArgs(n int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) >= n {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
}

func tierCompletions() []cobra.Completion {
	var out []cobra.Completion
	for _, name := range watchers.TierNames {
		w := watchers.Tiers[name]
		out = append(out, cobra.CompletionWithDesc(name, fmt.Sprintf("acts %s after the last change", w)))
	}
	return out
}

// loadDefs reads the watcher definitions of this home; damaged files are
// left out, as completion has nowhere to report them.
func (g *globalOptions) loadDefs() []*watchers.Definition {
	h, err := g.resolveHome()
	if err != nil {
		return nil
	}
	defs, _ := (&watchers.Store{Dir: h.Watchers()}).LoadAll()
	return defs
}

func (g *globalOptions) watcherNames(kind nameKind, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	defs := g.loadDefs()
	slices.SortFunc(defs, func(a, b *watchers.Definition) int { return strings.Compare(a.Name, b.Name) })
	for _, d := range defs {
		if !strings.HasPrefix(d.Name, prefix) {
			continue
		}
		switch {
		case kind == activeWatcher && d.IsTemplate(), kind == templateOnly && !d.IsTemplate():
			continue
		}
		desc := d.Path
		if d.IsTemplate() {
			desc = "template"
		}
		out = append(out, cobra.CompletionWithDesc(d.Name, desc))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// runIDs completes the run IDs of a watcher, newest first, each described
// by its outcome.
func (g *globalOptions) runIDs(ref, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	h, err := g.resolveHome()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	def, err := watchers.Find(g.loadDefs(), ref)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	runs, _ := dispatch.ReadHistory(h.Session(def.ID))
	var out []cobra.Completion
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		if !strings.HasPrefix(r.ID, prefix) {
			continue
		}
		desc := "running"
		if r.End != nil {
			desc = r.End.Outcome
		}
		out = append(out, cobra.CompletionWithDesc(r.ID, desc))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
