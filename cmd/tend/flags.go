package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/watchers"
)

// watcherFlags are the definition fields that add and edit share.
type watcherFlags struct {
	name, instructions, responsiveness string
	ignore, include, exclude           []string
	noRecursive, hidden, dryRun        bool
	vision                             bool
	model, provider, baseURL, keyName  string
	settle, maxIterations              int
	schedule, check, skill             string
	checkTimeout                       int
	tail, okPattern, failPattern       string
	silence                            string
	cooldown, burst, burstWindow       int
	maxFires                           int
	template, allowOverlap             bool
	remove                             map[string]*bool // edit's --no-X flags
}

func (f *watcherFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.name, "name", "", "watcher `NAME`: lowercase letters, digits, - and _ (at most 63)")
	fl.StringVar(&f.instructions, "instructions", "", "`TEXT` saying what the model should do with the folder (plain language, at most 64 KiB)")
	fl.StringVar(&f.responsiveness, "responsiveness", "", "debounce `TIER`: fast, balanced, patient, relaxed, deferred, extended")
	fl.StringArrayVar(&f.ignore, "ignore", nil, "gitignore-style `PATTERN` to leave out (repeatable)")
	fl.StringArrayVar(&f.include, "include", nil, "only changes matching this `GLOB` dispatch (doublestar syntax, repeatable)")
	fl.StringArrayVar(&f.exclude, "exclude", nil, "changes matching this `GLOB` never dispatch (repeatable)")
	fl.BoolVar(&f.noRecursive, "no-recursive", false, "watch only the folder itself, not its subfolders")
	fl.BoolVar(&f.hidden, "hidden", false, "include hidden files and folders")
	fl.BoolVar(&f.dryRun, "dry-run", false, "let the model plan without touching the folder")
	fl.StringVar(&f.model, "model", "", "`MODEL` name (default: a tool-capable model the server has)")
	fl.StringVar(&f.provider, "provider", "", "`PROVIDER`: ollama (default) or openai (any OpenAI-compatible server)")
	fl.StringVar(&f.baseURL, "base-url", "", "model server `URL`")
	fl.StringVar(&f.keyName, "key", "", "keyring entry `NAME` holding the API key (default openai)")
	fl.BoolVar(&f.vision, "vision", false, "the OpenAI-compatible model can see pictures: file_read of an image shows it the picture "+
		"(Ollama reports this by itself; --vision=false turns it off)")
	fl.IntVar(&f.settle, "settle", 0, "`SECONDS` to let the folder settle after a run (default 2, 0 = none)")
	fl.IntVar(&f.maxIterations, "max-iterations", 0, "`N` passes per run at most (default 5)")
	fl.StringVar(&f.schedule, "schedule", "", "also run on a schedule, `WHEN`: 'every 5m', 'daily 09:00 mon,thu', 'hourly :15,:45', …")
	fl.StringVar(&f.check, "check", "", "shell `COMMAND` run on the schedule (needs --schedule), in the folder; its output goes to the model. "+
		"A script inside the folder (./check.sh ARGS, or sh|bash|python3… ./check.sh ARGS) is copied into TEND_HOME and the copy runs, "+
		"so the model, which can write the folder, cannot change it; after editing the script, give --check again with tend edit")
	fl.IntVar(&f.checkTimeout, "check-timeout", 0, "`SECONDS` a check may run (default 120, at most 1800)")
	fl.StringVar(&f.skill, "skill", "", "instruction template `NAME` from TEND_HOME/skills/NAME.md")
	fl.StringVar(&f.tail, "tail", "", "log `FILE` inside the folder to follow for verdicts")
	fl.StringVar(&f.okPattern, "ok-pattern", "", "`REGEXP` of a good line in the tailed log (needs --tail)")
	fl.StringVar(&f.failPattern, "fail-pattern", "", "`REGEXP` of a failure line in the tailed log (needs --tail)")
	fl.StringVar(&f.silence, "silence", "", "dispatch when the tailed log has not grown for this `DURATION`, e.g. 10m (needs --tail)")
	fl.IntVar(&f.cooldown, "cooldown", 0, "`SECONDS` between runs at least (default 10, minimum 5)")
	fl.IntVar(&f.burst, "burst-threshold", 0, "pause after more than `N` runs within the burst window (default 5)")
	fl.IntVar(&f.burstWindow, "burst-window", 0, "burst window in `SECONDS` (default 60)")
	fl.IntVar(&f.maxFires, "max-fires", 0, "stop as exhausted after `N` runs (0 = no limit)")
	fl.BoolVar(&f.allowOverlap, "allow-overlap", false, "let this watcher share its folder with another watcher")
}

// removal is an edit flag that removes a field: the patch sends null.
type removal struct {
	flag, path, help string
	setBy            []string // flags that set the same field
}

var removals = []removal{
	{"no-tail", "tail", "stop following the log (removes --tail and its patterns)", []string{"tail", "ok-pattern", "fail-pattern", "silence"}},
	{"no-ok-pattern", "tail.okPattern", "remove the ok pattern of the tail", []string{"ok-pattern"}},
	{"no-fail-pattern", "tail.failPattern", "remove the fail pattern of the tail", []string{"fail-pattern"}},
	{"no-silence", "tail.silenceSeconds", "stop dispatching on a silent log", []string{"silence"}},
	{"no-schedule", "schedule", "remove the schedule", []string{"schedule"}},
	{"no-check", "check", "remove the check", []string{"check"}},
	{"no-check-timeout", "checkTimeoutSeconds", "back to the default check timeout", []string{"check-timeout"}},
	{"no-skill", "skill", "remove the skill", []string{"skill"}},
	{"no-ignore", "ignore", "remove every --ignore pattern", []string{"ignore"}},
	{"no-include", "include", "remove every --include glob", []string{"include"}},
	{"no-exclude", "exclude", "remove every --exclude glob", []string{"exclude"}},
	{"no-model", "provider.model", "let the server's model be chosen again", []string{"model"}},
	{"no-base-url", "provider.baseURL", "back to the provider's default server", []string{"base-url"}},
	{"no-key", "provider.keyName", "back to the default key name (openai)", []string{"key"}},
	{"no-max-fires", "guards.maxFires", "no limit on runs (as --max-fires 0)", []string{"max-fires"}},
}

// registerRemovals adds edit's --no-X flags.
func (f *watcherFlags) registerRemovals(cmd *cobra.Command) {
	f.remove = map[string]*bool{}
	for _, r := range removals {
		f.remove[r.flag] = cmd.Flags().Bool(r.flag, false, r.help)
	}
}

// patch returns a JSON merge patch of the definition fields the user set
// on the command line: only those leaves, nested where they are nested
// ({"guards":{"cooldownSeconds":30}}), so an edit keeps everything else.
// Values that would silently mean "the default" or "nothing" are refused.
func (f *watcherFlags) patch(cmd *cobra.Command) (map[string]any, error) {
	p := map[string]any{}
	ch := cmd.Flags().Changed
	set := func(flag, path string, v any) {
		if ch(flag) {
			setPath(p, path, v)
		}
	}
	if err := f.checkValues(ch); err != nil {
		return nil, err
	}
	if ch("instructions") && len(f.instructions) > watchers.MaxInstructionsBytes {
		return nil, fmt.Errorf("--instructions is %d KiB, over the limit of %d KiB: shorten it, or put long guidance in a skill file (TEND_HOME/skills/NAME.md, --skill NAME)",
			(len(f.instructions)+1023)/1024, watchers.MaxInstructionsBytes>>10)
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
	set("allow-overlap", "allowOverlap", f.allowOverlap)
	set("provider", "provider.kind", f.provider)
	set("model", "provider.model", f.model)
	set("base-url", "provider.baseURL", f.baseURL)
	set("key", "provider.keyName", f.keyName)
	set("vision", "provider.vision", f.vision)
	set("tail", "tail.file", f.tail)
	set("ok-pattern", "tail.okPattern", f.okPattern)
	set("fail-pattern", "tail.failPattern", f.failPattern)
	if ch("silence") {
		d, err := parseDuration(f.silence)
		if err != nil {
			return nil, fmt.Errorf("--silence %q: %v (use e.g. 90s, 10m, 1h)", f.silence, err)
		}
		if d.Seconds() < 1 {
			return nil, fmt.Errorf("--silence %q is shorter than a second: give how long the log may stay quiet, e.g. 10m (or --no-silence on edit)", f.silence)
		}
		setPath(p, "tail.silenceSeconds", int(d.Seconds()))
	}
	set("cooldown", "guards.cooldownSeconds", f.cooldown)
	set("burst-threshold", "guards.burstThreshold", f.burst)
	set("burst-window", "guards.burstWindowSeconds", f.burstWindow)
	set("max-fires", "guards.maxFires", f.maxFires)
	for _, r := range removals {
		if on := f.remove[r.flag]; on == nil || !*on {
			continue
		}
		for _, other := range r.setBy {
			if ch(other) {
				return nil, fmt.Errorf("--%s and --%s contradict each other: give one", r.flag, other)
			}
		}
		setPath(p, r.path, nil)
	}
	return p, nil
}

// checkValues refuses explicit values that the definition would read as
// "use the default" or that are out of range, instead of quietly doing
// something other than what was typed.
func (f *watcherFlags) checkValues(ch func(string) bool) error {
	atLeast := []struct {
		flag     string
		v, min   int
		fallback string
	}{
		{"max-iterations", f.maxIterations, 1, "the default of 5"},
		{"burst-threshold", f.burst, 1, "the default of 5"},
		{"burst-window", f.burstWindow, 1, "the default of 60"},
		{"check-timeout", f.checkTimeout, 1, "the default of 120"},
		{"cooldown", f.cooldown, 5, "the default of 10"},
		{"settle", f.settle, 0, "the default of 2; 0 means no settle"},
		{"max-fires", f.maxFires, 0, "no limit; 0 also means no limit"},
	}
	for _, a := range atLeast {
		if ch(a.flag) && a.v < a.min {
			return fmt.Errorf("--%s %d is below the minimum of %d: give %d or more, or leave it out for %s", a.flag, a.v, a.min, a.min, a.fallback)
		}
	}
	return nil
}

// needTail refuses tail patterns without a tail on add, where there is
// no earlier tail they could belong to.
func (f *watcherFlags) needTail(ch func(string) bool) error {
	if ch("tail") {
		return nil
	}
	for _, fl := range []string{"ok-pattern", "fail-pattern", "silence"} {
		if ch(fl) {
			return fmt.Errorf("--%s reads a log file, and none is followed: add --tail FILE (a log inside the folder)", fl)
		}
	}
	return nil
}

// setPath sets a dotted path in a nested patch, making the objects on
// the way.
func setPath(p map[string]any, path string, v any) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		if cur, set := p[k]; set && cur == nil {
			return // the whole object is removed already
		}
		next, ok := p[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			p[k] = next
		}
		p = next
	}
	p[keys[len(keys)-1]] = v
}
