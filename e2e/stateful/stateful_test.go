package stateful

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/content"
	"pgregory.net/rapid"
)

var skipOps = flag.String("stateful.skip", "", "comma-separated operations (e.g. edit,undo) and model modes (e.g. hang,http500) the stateful test leaves out, to look at one invariant at a time")

// TestMain gives rapid the CI budget (a fixed seed, few checks, a short
// shrink) unless the command line or the environment sets its own.
func TestMain(m *testing.M) {
	content.RunChildIfAsked() // the in-process daemon's extraction child
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	defaults := []struct{ flag, env, value string }{
		{"rapid.checks", "RAPID_CHECKS", "20"},
		{"rapid.steps", "RAPID_STEPS", "30"},
		{"rapid.seed", "RAPID_SEED", "20261201"},
		{"rapid.shrinktime", "RAPID_SHRINKTIME", "20s"},
		{"rapid.nofailfile", "RAPID_NOFAILFILE", "true"},
	}
	for _, d := range defaults {
		if !set[d.flag] && os.Getenv(d.env) == "" {
			flag.Set(d.flag, d.value)
		}
	}
	os.Exit(m.Run())
}

// TestStateful drives the real daemon (in-process, real kernel watcher,
// real runner and sandbox, fake clock) through random sequences of file
// changes, commands, restarts and model faults, then, with the model
// healthy and the watcher resumed and quiet, checks tend's promises:
// the daemon answers; every change reached a successful pass exactly once,
// is still pending, or was dismissed; the definition holds exactly the
// fields set; every run that changed files can be undone or says why not.
func TestStateful(t *testing.T) {
	skip := map[string]bool{}
	for _, s := range strings.Split(*skipOps, ",") {
		skip[strings.TrimSpace(s)] = true
	}
	rapid.Check(t, func(rt *rapid.T) {
		w := newWorld(t, rt)
		for _, md := range allModes {
			if !skip[string(md)] {
				w.modes = append(w.modes, md)
			}
		}
		actions := w.actions()
		for name := range actions {
			if skip[name] {
				delete(actions, name)
			}
		}
		actions[""] = func(rt *rapid.T) {
			if _, err := w.c.Status(w.cx()); err != nil {
				w.fatalf("the daemon does not answer: %v", err)
			}
			if err := w.m.proxy.problem(); err != nil {
				w.fatalf("test harness: %v", err)
			}
			v, err := w.c.Get(w.cx(), w.name)
			if err != nil {
				w.fatalf("getting the watcher: %v", err)
			}
			if p := w.checkDefinition(v.Definition); len(p) > 0 {
				w.fatalf("the definition is not what was set:\n  %s", strings.Join(p, "\n  "))
			}
		}
		rt.Repeat(actions)
		st := w.settle()
		var problems []string
		problems = append(problems, w.checkDelivery(st)...)
		if v, err := w.c.Get(w.cx(), w.name); err != nil {
			problems = append(problems, "the daemon does not answer: "+err.Error())
		} else {
			problems = append(problems, w.checkDefinition(v.Definition)...)
		}
		problems = append(problems, w.checkUndo()...)
		if len(problems) > 0 {
			w.fatalf("%d broken promise(s):\n  %s\n%s", len(problems), strings.Join(problems, "\n  "), w.runSummary())
		}
	})
}

// actions are the operations of the state machine; each ends once the
// watcher is at rest again.
func (w *world) actions() map[string]func(*rapid.T) {
	fileAction := func(f func(rt *rapid.T) string) func(*rapid.T) {
		return func(rt *rapid.T) {
			what := f(rt)
			w.waitStable(what)
		}
	}
	existing := func(rt *rapid.T) string {
		fs := w.files()
		if len(fs) == 0 {
			rt.Skip("no file to change")
		}
		return rapid.SampledFrom(fs).Draw(rt, "file")
	}
	absent := func(rt *rapid.T) string {
		var free []string
		for _, p := range plainFiles {
			if !w.exists(p) {
				free = append(free, p)
			}
		}
		if len(free) == 0 {
			rt.Skip("every name is taken")
		}
		return rapid.SampledFrom(free).Draw(rt, "name")
	}
	cmd := func(f func(rt *rapid.T, op int)) func(*rapid.T) {
		return func(rt *rapid.T) {
			n := len(w.ops)
			f(rt, -1)
			w.waitStable(w.ops[n])
		}
	}
	return map[string]func(*rapid.T){
		"create": fileAction(func(rt *rapid.T) string {
			p := absent(rt)
			w.write(w.op("create %s", p), p)
			return "create " + p
		}),
		"modify": fileAction(func(rt *rapid.T) string {
			p := existing(rt)
			w.write(w.op("modify %s", p), p)
			return "modify " + p
		}),
		"delete": fileAction(func(rt *rapid.T) string {
			p := existing(rt)
			w.remove(w.op("delete %s", p), p)
			return "delete " + p
		}),
		"rename": fileAction(func(rt *rapid.T) string {
			from := existing(rt)
			to := absent(rt)
			w.rename(w.op("rename %s to %s", from, to), from, to)
			return "rename " + from
		}),
		"burst": fileAction(func(rt *rapid.T) string {
			n := rapid.IntRange(2, 30).Draw(rt, "burst size")
			op := w.op("burst of %d files in b/", n)
			for i := 0; i < n; i++ {
				w.write(op, burstFile(i))
			}
			return w.ops[op]
		}),
		"tick": func(rt *rapid.T) {
			d := rapid.SampledFrom([]time.Duration{100 * time.Millisecond, 300 * time.Millisecond, time.Second, 3 * time.Second, 6 * time.Second}).Draw(rt, "tick")
			w.op("clock +%s", d)
			w.fc.Advance(d)
			w.waitStable(fmt.Sprintf("moving the clock by %s", d))
		},
		"pause": cmd(func(rt *rapid.T, _ int) { w.pause(w.op("pause")) }),
		"resume": cmd(func(rt *rapid.T, _ int) {
			reset := rapid.Bool().Draw(rt, "reset")
			w.resume(w.op("resume reset=%v", reset), reset, false)
		}),
		"forget": cmd(func(rt *rapid.T, _ int) {
			if w.def.Enabled {
				w.op("resume --forget skipped: the watcher is not paused")
				return
			}
			w.resume(w.op("resume --forget"), false, true)
		}),
		"run": cmd(func(rt *rapid.T, _ int) {
			op := w.op("run")
			if _, err := w.c.Run(w.cx(), w.name, false); err != nil {
				w.ops[op] += " -> " + err.Error()
			}
		}),
		"dryrun": cmd(func(rt *rapid.T, _ int) {
			op := w.op("run --dry-run")
			if _, err := w.c.Run(w.cx(), w.name, true); err != nil {
				w.ops[op] += " -> " + err.Error()
			}
		}),
		"undo": cmd(func(rt *rapid.T, _ int) {
			op := w.op("undo")
			resp, err := w.c.Undo(w.cx(), w.name, "")
			if err != nil {
				w.ops[op] += " -> " + err.Error()
				return
			}
			w.ops[op] += fmt.Sprintf(" -> run %s, touched %v", resp.RunID, resp.Touched)
			now := time.Now()
			for _, p := range resp.Touched {
				w.events = append(w.events, event{at: now, kind: evTend, path: p, content: w.read(p), op: op})
			}
		}),
		"edit": cmd(func(rt *rapid.T, _ int) { w.edit(rt) }),
		"panic": cmd(func(rt *rapid.T, _ int) {
			op := w.op("panic")
			if err := w.c.Panic(w.cx()); err != nil {
				w.ops[op] += " -> " + err.Error()
				return
			}
			w.def.Enabled = false
		}),
		"restart": cmd(func(rt *rapid.T, _ int) {
			w.op("restart the daemon")
			w.stop()
			w.start()
		}),
		"model": func(rt *rapid.T) {
			if len(w.modes) == 0 {
				rt.Skip("every model mode is left out")
			}
			md := rapid.SampledFrom(w.modes).Draw(rt, "mode")
			w.op("model: %s", md)
			w.m.setMode(md)
		},
		"release": cmd(func(rt *rapid.T, _ int) {
			w.op("model: release held answers")
			w.m.release()
		}),
	}
}

// edit changes a random set of fields, guards given as a partial object
// (the other guards must stay as they are).
func (w *world) edit(rt *rapid.T) {
	patch := map[string]any{}
	next := w.def
	if rapid.Bool().Draw(rt, "edit instructions") {
		next.Instructions = fmt.Sprintf("Sort every new file into the folder Sorted/ (edit %d).", len(w.ops))
		patch["instructions"] = next.Instructions
	}
	if rapid.Bool().Draw(rt, "edit responsiveness") {
		next.Responsiveness = rapid.SampledFrom([]string{"fast", "balanced"}).Draw(rt, "responsiveness")
		patch["responsiveness"] = next.Responsiveness
	}
	if rapid.Bool().Draw(rt, "edit maxIterations") {
		next.MaxIterations = rapid.IntRange(1, 5).Draw(rt, "maxIterations")
		patch["maxIterations"] = next.MaxIterations
	}
	if rapid.Bool().Draw(rt, "edit dryRun") {
		next.DryRun = rapid.Bool().Draw(rt, "dryRun")
		patch["dryRun"] = next.DryRun
	}
	guards := map[string]any{}
	if rapid.Bool().Draw(rt, "edit cooldown") {
		next.Guards.CooldownSeconds = rapid.IntRange(5, 8).Draw(rt, "cooldownSeconds")
		guards["cooldownSeconds"] = next.Guards.CooldownSeconds
	}
	if rapid.Bool().Draw(rt, "edit maxFires") {
		next.Guards.MaxFires = rapid.IntRange(0, 6).Draw(rt, "maxFires")
		guards["maxFires"] = next.Guards.MaxFires
	}
	if len(guards) > 0 {
		patch["guards"] = guards
	}
	op := w.op("edit %v", patch)
	if len(patch) == 0 {
		return
	}
	v, err := w.c.Edit(w.cx(), w.name, patch)
	if err != nil {
		w.ops[op] += " -> " + err.Error()
		return
	}
	next.Enabled = w.def.Enabled
	w.def = next
	if p := w.checkDefinition(v.Definition); len(p) > 0 {
		w.fatalf("the definition after an edit is not what was set:\n  %s", strings.Join(p, "\n  "))
	}
}
