package dispatch

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tend-agent/tend/internal/safetext"
)

// FormatHistory prints runs readably for `tend history`: with runID set,
// only that run (an unambiguous prefix is enough), else every run.
func FormatHistory(w io.Writer, runs []Run, runID string) {
	if runID != "" {
		r, ok := FindRun(runs, runID)
		if !ok {
			fmt.Fprintf(w, "no run %q in this history\n", runID)
			return
		}
		runs = []Run{r}
	}
	if len(runs) == 0 {
		fmt.Fprintln(w, "no runs yet")
		return
	}
	for i, r := range runs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		formatRun(w, r)
	}
}

func formatRun(w io.Writer, r Run) {
	if r.Start == nil && len(r.Records) == 1 && r.Records[0].Type == RecCheck {
		c := r.Records[0]
		fmt.Fprintf(w, "== script check · %s · %s in %s\n", c.Time.Local().Format("2006-01-02 15:04:05"),
			cleanLine(c.Outcome), time.Duration(c.DurationMs)*time.Millisecond)
		if c.Reason != "" {
			fmt.Fprintf(w, "   %s\n", cleanLine(c.Reason))
		}
		return
	}
	header := "run " + cleanLine(r.ID)
	if s := r.Start; s != nil {
		header += " · " + s.Time.Local().Format("2006-01-02 15:04:05")
		if s.Trigger != "" {
			header += " · trigger " + cleanLine(s.Trigger)
		}
		if s.DryRun {
			header += " · dry run"
		}
	}
	if e := r.End; e != nil {
		header += " · " + cleanLine(e.Outcome)
		header += " in " + (time.Duration(e.DurationMs) * time.Millisecond).String()
	} else {
		header += " · unfinished"
	}
	fmt.Fprintf(w, "== %s\n", header)
	if s := r.Start; s != nil && (s.Provider != "" || s.Model != "") {
		fmt.Fprintf(w, "   model %s (%s)\n", cleanLine(s.Model), cleanLine(s.Provider))
	}
	if e := r.End; e != nil {
		parts := []string{fmt.Sprintf("tokens %d in / %d out", e.PromptTokens, e.CompletionTokens)}
		if e.Passes > 0 {
			parts = append(parts, fmt.Sprintf("%d pass(es)", e.Passes))
		}
		fmt.Fprintf(w, "   %s\n", strings.Join(parts, " · "))
	}
	if s := r.Start; s != nil && len(s.Changed) > 0 {
		fmt.Fprintln(w, "   changed:")
		for i, c := range s.Changed {
			if i == MaxPromptPaths {
				fmt.Fprintf(w, "     %d more\n", len(s.Changed)-MaxPromptPaths)
				break
			}
			suffix := ""
			if c.Removed {
				suffix = " (removed)"
			}
			fmt.Fprintf(w, "     - %s%s\n", safetext.Name(c.Path), suffix)
		}
	}
	pass := 0
	for _, rec := range r.Records {
		if rec.Pass > 1 && rec.Pass != pass {
			fmt.Fprintf(w, "   -- pass %d\n", rec.Pass)
		}
		if rec.Pass > 0 {
			pass = rec.Pass
		}
		switch rec.Type {
		case RecMessage:
			fmt.Fprintf(w, "   %s:\n%s\n", cleanLine(rec.Role), indent(cleanBlock(rec.Content), "     "))
		case RecTool:
			status := "ok"
			if rec.Error {
				status = "error"
			}
			fmt.Fprintf(w, "   > %s %s  %s (%d ms)\n", cleanLine(rec.Name), short(string(rec.Args), 160), status, rec.DurationMs)
			if rec.Result != "" {
				fmt.Fprintf(w, "     %s\n", short(rec.Result, 200))
			}
		case RecLedger:
			fmt.Fprintf(w, "   ledger: %s\n", ledgerSummary(rec.Effects))
		case RecRunStart, RecRunEnd:
		case RecUndo:
			fmt.Fprintf(w, "   undo %s: %s\n", cleanLine(rec.Outcome), cleanLine(rec.Reason))
		default:
			fmt.Fprintf(w, "   (%s record)\n", cleanLine(rec.Type))
		}
	}
	if e := r.End; e != nil && e.Reason != "" {
		fmt.Fprintf(w, "   outcome: %s — %s\n", cleanLine(e.Outcome), cleanLine(e.Reason))
	}
}

// ledgerSummary says how many effects a ledger holds and names the first
// few ("move a → b").
func ledgerSummary(raw json.RawMessage) string {
	var effects []map[string]any
	if err := json.Unmarshal(raw, &effects); err != nil {
		var wrapped struct {
			Effects []map[string]any `json:"effects"`
		}
		if json.Unmarshal(raw, &wrapped) != nil {
			return short(string(raw), 160)
		}
		effects = wrapped.Effects
	}
	if len(effects) == 0 {
		return "no changes"
	}
	var names []string
	for i, e := range effects {
		if i == 5 {
			names = append(names, fmt.Sprintf("+%d more", len(effects)-5))
			break
		}
		op, _ := e["op"].(string)
		var paths []string
		for _, k := range []string{"path", "from", "to"} {
			if s, ok := e[k].(string); ok && s != "" {
				paths = append(paths, safetext.Name(s))
			}
		}
		names = append(names, strings.TrimSpace(op+" "+strings.Join(paths, " → ")))
	}
	return fmt.Sprintf("%d change(s): %s", len(effects), strings.Join(names, "; "))
}

// short puts text on one line and cuts it to about n characters.
func short(s string, n int) string {
	s = strings.Join(strings.Fields(cleanBlock(s)), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}
