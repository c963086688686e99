package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// add and edit take some forty flags; their help lists them in groups,
// in this order, so the one wanted is found by what it is about.
var flagGroupOrder = []string{"Watcher", "What to watch", "Model", "Timing and limits", "Schedule and checks", "Log tail", "Removing fields"}

var flagGroupOf = map[string]string{
	"name": "Watcher", "instructions": "Watcher", "skill": "Watcher", "template": "Watcher",
	"dry-run": "Watcher", "path": "Watcher", "enable": "Watcher", "disable": "Watcher",

	"ignore": "What to watch", "include": "What to watch", "exclude": "What to watch",
	"no-recursive": "What to watch", "hidden": "What to watch", "allow-overlap": "What to watch",

	"provider": "Model", "model": "Model", "base-url": "Model", "key": "Model", "vision": "Model",

	"responsiveness": "Timing and limits", "settle": "Timing and limits", "max-iterations": "Timing and limits",
	"cooldown": "Timing and limits", "burst-threshold": "Timing and limits", "burst-window": "Timing and limits",
	"max-fires": "Timing and limits",

	"schedule": "Schedule and checks", "check": "Schedule and checks", "check-timeout": "Schedule and checks",

	"tail": "Log tail", "ok-pattern": "Log tail", "fail-pattern": "Log tail", "silence": "Log tail",
}

// flagGroupAnnotation names a flag's group in its pflag annotations.
const flagGroupAnnotation = "tend_flag_group"

// groupedUsageTemplate is cobra's usage template with the local flags
// listed group by group.
var groupedUsageTemplate = strings.Replace((&cobra.Command{}).UsageTemplate(),
	"\n\nFlags:\n{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}",
	"{{groupedFlags .LocalFlags}}", 1)

func init() { cobra.AddTemplateFunc("groupedFlags", groupedFlags) }

// groupFlags gives add's and edit's flags their groups and help layout.
func groupFlags(c *cobra.Command) {
	if c.Name() == "add" || c.Name() == "edit" {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			g := flagGroupOf[f.Name]
			if g == "" && strings.HasPrefix(f.Name, "no-") && f.Name != "no-recursive" {
				g = "Removing fields"
			}
			if g != "" {
				c.Flags().SetAnnotation(f.Name, flagGroupAnnotation, []string{g})
			}
		})
		c.SetUsageTemplate(groupedUsageTemplate)
	}
	for _, sub := range c.Commands() {
		groupFlags(sub)
	}
}

// groupedFlags renders flags under a heading per group; the ungrouped
// ones (help, and any flag added later without a group) come last.
func groupedFlags(flags *pflag.FlagSet) string {
	sets := map[string]*pflag.FlagSet{}
	flags.VisitAll(func(f *pflag.Flag) {
		g := "Other"
		if a := f.Annotations[flagGroupAnnotation]; len(a) > 0 {
			g = a[0]
		}
		if sets[g] == nil {
			sets[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
			sets[g].SortFlags = flags.SortFlags
		}
		sets[g].AddFlag(f)
	})
	var b strings.Builder
	for _, g := range append(flagGroupOrder, "Other") {
		if fs := sets[g]; fs != nil {
			title := g + ":"
			if g == "Other" {
				title = "Other flags:"
			}
			b.WriteString("\n\n" + title + "\n" + strings.TrimRight(fs.FlagUsages(), " \n"))
		}
	}
	return b.String()
}
