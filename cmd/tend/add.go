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

// watcherFlags are the definition fields that add and edit share.
type watcherFlags struct {
	name, instructions, responsiveness string
	ignore, include, exclude           []string
	noRecursive, hidden, dryRun        bool
	model, provider, baseURL, keyName  string
	settle, maxIterations              int
	schedule, check, skill             string
	checkTimeout                       int
	tail, okPattern, failPattern       string
	silence                            string
	cooldown, burst, burstWindow       int
	maxFires                           int
	template                           bool
}

func (f *watcherFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.name, "name", "", "watcher name: lowercase letters, digits, - and _ (at most 63)")
	fl.StringVar(&f.instructions, "instructions", "", "what the model should do with the folder (plain language)")
	fl.StringVar(&f.responsiveness, "responsiveness", "", "debounce tier: fast, balanced, patient, relaxed, deferred, extended")
	fl.StringArrayVar(&f.ignore, "ignore", nil, "gitignore-style pattern to leave out (repeatable)")
	fl.StringArrayVar(&f.include, "include", nil, "only changes matching this glob dispatch (doublestar syntax, repeatable)")
	fl.StringArrayVar(&f.exclude, "exclude", nil, "changes matching this glob never dispatch (repeatable)")
	fl.BoolVar(&f.noRecursive, "no-recursive", false, "watch only the folder itself, not its subfolders")
	fl.BoolVar(&f.hidden, "hidden", false, "include hidden files and folders")
	fl.BoolVar(&f.dryRun, "dry-run", false, "let the model plan without touching the folder")
	fl.StringVar(&f.model, "model", "", "model name (default: a tool-capable model the server has)")
	fl.StringVar(&f.provider, "provider", "", "ollama (default) or openai (any OpenAI-compatible server)")
	fl.StringVar(&f.baseURL, "base-url", "", "model server URL")
	fl.StringVar(&f.keyName, "key", "", "keyring entry holding the API key (default openai)")
	fl.IntVar(&f.settle, "settle", 0, "seconds to let the folder settle after a run (default 2)")
	fl.IntVar(&f.maxIterations, "max-iterations", 0, "passes per run at most (default 5)")
	fl.StringVar(&f.schedule, "schedule", "", "also run on a schedule: 'every 5m', 'daily 09:00 mon,thu', 'hourly :15,:45', …")
	fl.StringVar(&f.check, "check", "", "script check run on the schedule; its output goes to the model")
	fl.IntVar(&f.checkTimeout, "check-timeout", 0, "seconds a check may run (default 120, at most 1800)")
	fl.StringVar(&f.skill, "skill", "", "named instruction template from TEND_HOME/skills/NAME.md")
	fl.StringVar(&f.tail, "tail", "", "log file inside the folder to follow for verdicts")
	fl.StringVar(&f.okPattern, "ok-pattern", "", "regular expression of a good line in the tailed log")
	fl.StringVar(&f.failPattern, "fail-pattern", "", "regular expression of a failure line in the tailed log")
	fl.StringVar(&f.silence, "silence", "", "dispatch when the tailed log has not grown for this long (e.g. 10m)")
	fl.IntVar(&f.cooldown, "cooldown", 0, "seconds between runs at least (default 10, minimum 5)")
	fl.IntVar(&f.burst, "burst-threshold", 0, "pause after more than this many runs within the burst window (default 5)")
	fl.IntVar(&f.burstWindow, "burst-window", 0, "burst window in seconds (default 60)")
	fl.IntVar(&f.maxFires, "max-fires", 0, "stop as exhausted after this many runs (0 = no limit)")
}

// patch returns the definition fields the user set on the command line.
func (f *watcherFlags) patch(cmd *cobra.Command) (map[string]any, error) {
	p := map[string]any{}
	ch := cmd.Flags().Changed
	set := func(flag, key string, v any) {
		if ch(flag) {
			p[key] = v
		}
	}
	set("name", "name", f.name)
	set("instructions", "instructions", f.instructions)
	set("responsiveness", "responsiveness", f.responsiveness)
	set("ignore", "ignore", f.ignore)
	set("include", "include", f.include)
	set("exclude", "exclude", f.exclude)
	set("no-recursive", "recursive", !f.noRecursive)
	set("hidden", "includeHidden", f.hidden)
	set("dry-run", "dryRun", f.dryRun)
	set("settle", "settleSeconds", f.settle)
	set("max-iterations", "maxIterations", f.maxIterations)
	set("schedule", "schedule", f.schedule)
	set("check", "check", f.check)
	set("check-timeout", "checkTimeoutSeconds", f.checkTimeout)
	set("skill", "skill", f.skill)
	if ch("model") || ch("provider") || ch("base-url") || ch("key") {
		p["provider"] = map[string]any{"kind": f.provider, "model": f.model, "baseURL": f.baseURL, "keyName": f.keyName}
	}
	if ch("tail") || ch("ok-pattern") || ch("fail-pattern") || ch("silence") {
		sec := 0
		if f.silence != "" {
			d, err := parseDuration(f.silence)
			if err != nil {
				return nil, fmt.Errorf("--silence %q: %v (use e.g. 90s, 10m, 1h)", f.silence, err)
			}
			sec = int(d.Seconds())
		}
		if f.tail == "" {
			p["tail"] = nil
		} else {
			p["tail"] = map[string]any{"file": f.tail, "okPattern": f.okPattern, "failPattern": f.failPattern, "silenceSeconds": sec}
		}
	}
	if ch("cooldown") || ch("burst-threshold") || ch("burst-window") || ch("max-fires") {
		p["guards"] = map[string]any{"cooldownSeconds": f.cooldown, "burstThreshold": f.burst, "burstWindowSeconds": f.burstWindow, "maxFires": f.maxFires}
	}
	return p, nil
}

func newAddCommand(g *globalOptions) *cobra.Command {
	var f watcherFlags
	cmd := &cobra.Command{
		Use:   "add PATH --name N --instructions TEXT",
		Short: "Watch a folder with plain-language instructions (no PATH with --template: a template)",
		Args:  cobra.MaximumNArgs(1),
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
	cmd.Flags().BoolVar(&f.template, "template", false, "make a template (no folder); attach it later with `tend attach`")
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
