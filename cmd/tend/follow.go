package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/watchers"
)

// followPoll is how often `tend run --follow` reads the session file.
const followPoll = 150 * time.Millisecond

// followRun prints a run's messages and tool calls as they are written to
// the watcher's session file, until the run ends. It returns an exitError
// with code 1 when the run did not succeed. The session file is the same
// record `tend history` reads, so what streams is what stays.
func followRun(ctx context.Context, c *api.Client, h home.Home, def *watchers.Definition, runID string, out io.Writer) error {
	path := h.Session(def.ID)
	printed := 0 // body lines printed so far
	started := false
	tick := time.NewTicker(followPoll)
	defer tick.Stop()
	for {
		runs, err := dispatch.ReadHistory(path)
		if err != nil {
			return err
		}
		if r, ok := dispatch.FindRun(runs, runID); ok {
			if !started && r.Start != nil {
				started = true
				fmt.Fprintf(out, "== run %s · trigger %s · model %s (%s)\n", r.ID, r.Start.Trigger, orDash(r.Start.Model), orDash(r.Start.Provider))
			}
			// The body of a run without its start and end: records
			// only append, so its lines only grow.
			var b bytes.Buffer
			dispatch.FormatHistory(&b, []dispatch.Run{{ID: r.ID, Records: r.Records}}, "")
			lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")[1:]
			for ; printed < len(lines); printed++ {
				fmt.Fprintln(out, lines[printed])
			}
			if e := r.End; e != nil {
				return runEnded(out, def.Name, e)
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped following run %s; it goes on in the daemon (`tend history %s --run %s`)", runID, def.Name, runID)
		case <-tick.C:
		}
		// A daemon that went away ends no run: say so instead of waiting.
		if _, err := c.Get(ctx, def.ID); err != nil && ctx.Err() == nil {
			return fmt.Errorf("lost the daemon while following run %s: %w", runID, err)
		}
	}
}

// runEnded prints the outcome line and turns a failed run into exit 1.
func runEnded(out io.Writer, name string, e *dispatch.Record) error {
	line := fmt.Sprintf("== %s in %s", e.Outcome, time.Duration(e.DurationMs)*time.Millisecond)
	if e.Passes > 0 {
		line += fmt.Sprintf(" · %d pass(es)", e.Passes)
	}
	if e.Reason != "" {
		line += " — " + e.Reason
	}
	fmt.Fprintln(out, line)
	switch e.Outcome {
	case dispatch.OutcomeDone, "skipped":
		return nil
	}
	return &exitError{code: 1, msg: fmt.Sprintf("run of %s ended %s: see `tend history %s`", name, e.Outcome, name)}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

var errNoRunID = errors.New("the daemon started the run but gave no run ID to follow")
