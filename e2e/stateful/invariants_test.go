package stateful

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/watchers"
)

// item is one step of the replayed timeline: a change to the folder, a
// dismissal, or a successful pass being shown paths.
type item struct {
	at    time.Time
	order int // ties: changes, then passes, then tend's own moves
	ev    event
	pass  int    // >0: a presentation by this pass
	run   string // the pass's run
	paths []string
}

// pathState is what the replay knows of one path.
type pathState struct {
	cur, seen string // content now, and when last handled ("" = absent)
	careless  bool   // tend changed it itself: showing it or not are both fine
	lastOp    int    // the op of the last change by the test, -1 if none
	handled   string // how it was last handled, for messages
	// wasHandled: a successful pass was shown it, or it was dismissed;
	// changed: the test changed it since. A path handled and not changed
	// since must not be shown again.
	wasHandled, changed bool
}

// checkDelivery replays the timeline and checks that every change the test
// made was shown to a successful pass after it happened, is still pending,
// or was dismissed; and that no successful pass was shown a path that had
// not changed since it was last handled (exactly once).
func (w *world) checkDelivery(st watchers.State) []string {
	passes := w.m.snapshot()
	var items []item
	for _, e := range w.events {
		items = append(items, item{at: e.at, ev: e})
	}
	for _, r := range w.runs() {
		if r.Start == nil {
			continue
		}
		ok := r.End != nil && !r.Start.DryRun && r.End.Outcome == dispatch.OutcomeDone
		passOf := map[int]int{} // the run's pass number -> the stand-in's pass number
		for _, rec := range r.Records {
			if rec.Type != dispatch.RecMessage || rec.Role != "assistant" {
				continue
			}
			if mm := markerRE.FindStringSubmatch(rec.Content); mm != nil {
				n, _ := strconv.Atoi(mm[1])
				if n >= 1 && n <= len(passes) {
					passOf[rec.Pass] = n
				}
			}
		}
		for _, n := range passOf {
			if ok {
				p := passes[n-1]
				items = append(items, item{at: p.arrived, order: 1, pass: n, run: r.ID, paths: p.shown()})
			}
		}
		if r.Start.DryRun {
			continue // its tools changed nothing
		}
		for _, rec := range r.Records {
			if rec.Type != dispatch.RecTool || rec.Name != "file_move" || rec.Error {
				continue
			}
			var a struct{ From, To string }
			if json.Unmarshal(rec.Args, &a) != nil || passOf[rec.Pass] == 0 {
				continue
			}
			at := passes[passOf[rec.Pass]-1].arrived
			items = append(items, item{at: at, order: 2, ev: event{kind: evTend, path: a.From, content: "\x00move-from"}},
				item{at: at, order: 2, ev: event{kind: evTend, path: a.To, content: "\x00move-to:" + a.From}})
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		if !items[i].at.Equal(items[j].at) {
			return items[i].at.Before(items[j].at)
		}
		return items[i].order < items[j].order
	})

	paths := map[string]*pathState{}
	get := func(p string) *pathState {
		if paths[p] == nil {
			paths[p] = &pathState{lastOp: -1, handled: "never shown"}
		}
		return paths[p]
	}
	var problems []string
	moved := map[string]string{} // content of a path a move took away, for its target
	for _, it := range items {
		switch {
		case it.pass > 0:
			for _, p := range it.paths {
				if !known(p) {
					continue // a folder, or text the stand-in took for a path
				}
				ps := get(p)
				if ps.wasHandled && !ps.changed && !ps.careless {
					problems = append(problems, fmt.Sprintf("exactly once: %s was shown to pass #%d (run %s) although it had not changed since it was %s",
						p, it.pass, it.run, ps.handled))
				}
				ps.seen, ps.careless, ps.wasHandled, ps.changed = ps.cur, false, true, false
				ps.handled = fmt.Sprintf("shown to pass #%d (run %s)", it.pass, it.run)
			}
		case it.ev.kind == evForget:
			for _, ps := range paths {
				ps.seen, ps.careless, ps.wasHandled, ps.changed = ps.cur, false, true, false
				ps.handled = fmt.Sprintf("dismissed by `resume --forget` (op %d)", it.ev.op)
			}
		case it.ev.kind == evUser:
			ps := get(it.ev.path)
			ps.cur, ps.careless, ps.lastOp, ps.changed = it.ev.content, false, it.ev.op, true
		case it.ev.kind == evTend:
			ps := get(it.ev.path)
			switch c := it.ev.content; {
			case c == "\x00move-from":
				moved[it.ev.path] = ps.cur
				ps.cur = ""
			case strings.HasPrefix(c, "\x00move-to:"):
				ps.cur = moved[strings.TrimPrefix(c, "\x00move-to:")]
			default:
				ps.cur = c
			}
			ps.seen, ps.careless = ps.cur, true
		}
	}
	pending := map[string]bool{}
	for _, pc := range st.Pending {
		pending[pc.Path] = true
	}
	var names []string
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		ps := paths[p]
		if ps.cur == ps.seen || ps.careless || pending[p] {
			continue
		}
		problems = append(problems, fmt.Sprintf("dropped: %s changed (last by op %d) but no successful pass was shown it since it was %s, and it is not pending (pending: %v)",
			p, ps.lastOp, ps.handled, st.Pending))
	}
	return problems
}

// checkDefinition compares the daemon's definition with the test's model
// of it, field by field (the timestamps left out).
func (w *world) checkDefinition(got watchers.Definition) []string {
	want := w.def
	got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if reflect.DeepEqual(got, want) {
		return nil
	}
	var g, x map[string]any
	bg, _ := json.Marshal(got)
	bx, _ := json.Marshal(want)
	json.Unmarshal(bg, &g)
	json.Unmarshal(bx, &x)
	var out []string
	for k := range x {
		if !reflect.DeepEqual(g[k], x[k]) {
			out = append(out, fmt.Sprintf("definition field %s is %v, want %v", k, g[k], x[k]))
		}
	}
	for k := range g {
		if _, ok := x[k]; !ok {
			out = append(out, fmt.Sprintf("definition has field %s = %v that was never set", k, g[k]))
		}
	}
	sort.Strings(out)
	return out
}

// checkUndo asks to undo, newest first, every run whose ledger shows it
// changed files and that was not undone yet: each must be undone or
// refused with a reason that is not "nothing to undo".
func (w *world) checkUndo() []string {
	var out []string
	runs := w.runs()
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		changed, undone := false, false
		for _, rec := range r.Records {
			switch {
			case rec.Type == dispatch.RecLedger && len(rec.Effects) > 0 && string(rec.Effects) != "[]" && string(rec.Effects) != "null":
				changed = true
			case rec.Type == dispatch.RecUndo && rec.Outcome == "undone":
				undone = true
			}
		}
		if !changed || undone || (r.Start != nil && r.Start.DryRun) {
			continue // a dry run's ledger lists what it would have done
		}
		op := w.op("check: undo run %s", r.ID)
		resp, err := w.c.Undo(w.cx(), w.name, r.ID)
		if _, serr := w.c.Status(w.cx()); serr != nil {
			out = append(out, fmt.Sprintf("undoable: the daemon stopped answering after undo of run %s: %v", r.ID, serr))
			return out
		}
		if err == nil {
			w.ops[op] += fmt.Sprintf(" -> restored %v", resp.Restored)
			continue
		}
		w.ops[op] += " -> " + err.Error()
		msg := err.Error()
		if strings.TrimSpace(msg) == "" || strings.Contains(msg, "nothing to undo") || strings.Contains(msg, "no ledger") {
			out = append(out, fmt.Sprintf("undoable: run %s changed files (its ledger is in the history) but undo says: %s", r.ID, msg))
		}
	}
	return out
}

// runSummary describes every run for failure messages: trigger, outcome,
// and the paths each of its passes was shown.
func (w *world) runSummary() string {
	passes := w.m.snapshot()
	var b strings.Builder
	b.WriteString("runs:")
	for _, r := range w.runs() {
		fmt.Fprintf(&b, "\n  run %s", r.ID)
		if r.Start != nil {
			fmt.Fprintf(&b, " trigger=%s dry=%v changed=%d", r.Start.Trigger, r.Start.DryRun, len(r.Start.Changed))
		}
		if r.End != nil {
			fmt.Fprintf(&b, " outcome=%s (%s)", r.End.Outcome, r.End.Reason)
		} else {
			b.WriteString(" (not ended)")
		}
		said := map[int]bool{}
		for _, rec := range r.Records {
			if rec.Type != dispatch.RecMessage || rec.Role != "assistant" {
				continue
			}
			if mm := markerRE.FindStringSubmatch(rec.Content); mm != nil {
				n, _ := strconv.Atoi(mm[1])
				if n >= 1 && n <= len(passes) && !said[n] {
					said[n] = true
					fmt.Fprintf(&b, "\n    pass %d = #%d at %s shown %v", rec.Pass, n, passes[n-1].arrived.Format("15:04:05.000"), passes[n-1].shown())
				}
			}
		}
	}
	fmt.Fprintf(&b, "\n  stand-in passes: %d", len(passes))
	for _, p := range passes {
		fmt.Fprintf(&b, "\n    #%d at %s shown %v overflow=%d", p.n, p.arrived.Format("15:04:05.000"), p.shown(), p.overflow)
	}
	return b.String()
}
