package stateful

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/watchers"
)

// TestGrowingFileWaitsOthersDoNot is the regression test of a file that is
// still being written: appended to every 100 ms for 30 s in a fast watcher
// while other files arrive now and then. The others must reach the model
// within the max wait (10 × the tier's window) of their arrival; the
// growing file only once it has stopped growing, never while it is still
// being written. It runs on the wall clock: the writer is real.
func TestGrowingFileWaitsOthersDoNot(t *testing.T) {
	grow := 30 * time.Second
	if testing.Short() {
		grow = 10 * time.Second
	}
	w := newWorldClock(t, t, false)
	window, maxWait := w.def.Tier()
	// The others come far enough apart that the 5 s cooldown after one
	// run never holds back the next: the promise under test is the max wait.
	cooldown := time.Duration(w.def.Guards.CooldownSeconds) * time.Second
	gap := maxWait + cooldown + 2*time.Second

	f, err := os.OpenFile(w.abs("grow.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	arrived := map[string]time.Time{} // other file -> when it was written
	var lastAppend time.Time
	var appends []time.Time
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	next := start.Add(time.Second)
	for n := 0; time.Since(start) < grow; {
		<-tick.C
		if _, err := fmt.Fprintf(f, "line %d at %s\n", n, time.Now().Format(time.RFC3339Nano)); err != nil {
			t.Fatal(err)
		}
		lastAppend = time.Now()
		appends = append(appends, lastAppend)
		if time.Now().After(next) && time.Until(start.Add(grow)) > maxWait {
			n++
			p := fmt.Sprintf("other-%d.txt", n)
			w.write(w.op("create %s", p), p)
			arrived[p] = time.Now()
			next = time.Now().Add(gap)
		}
	}
	f.Close()
	w.op("stopped appending to grow.log")

	// Now the growing file must be handed over, once.
	shownAt := func(p string) []pass {
		var out []pass
		for _, ps := range w.m.snapshot() {
			if slices.Contains(ps.shown(), p) {
				out = append(out, ps)
			}
		}
		return out
	}
	limit := maxWait + cooldown + 15*time.Second
	deadline := time.Now().Add(limit)
	for {
		if s := shownAt("grow.log"); len(s) > 0 && !s[len(s)-1].arrived.Before(lastAppend) {
			break
		}
		if time.Now().After(deadline) {
			st, _ := w.state()
			t.Fatalf("grow.log stopped growing at %s but no pass was shown it within %s after (watcher %s: %s)\n%s",
				lastAppend.Format("15:04:05.000"), limit, st.Phase, st.Reason, w.runSummary())
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.waitStable("the growing file's run")

	var problems []string
	// The promise is "quiet for the tier's window": on a busy machine the
	// writer itself can stall for longer, and then the file was quiet.
	stalledBefore := func(at time.Time) bool {
		for i := 0; i+1 < len(appends); i++ {
			if appends[i+1].Sub(appends[i]) >= window && appends[i].Before(at) && at.Sub(appends[i]) < 3*time.Second {
				return true
			}
		}
		return false
	}
	for _, ps := range shownAt("grow.log") {
		if ps.arrived.Before(lastAppend) && stalledBefore(ps.arrived) {
			t.Logf("grow.log went to pass #%d at %s after the writer itself paused for a window", ps.n, ps.arrived.Format("15:04:05.000"))
			continue
		}
		if ps.arrived.Before(lastAppend) {
			problems = append(problems, fmt.Sprintf("grow.log was handed to pass #%d at %s while it was still being written (last append %s)",
				ps.n, ps.arrived.Format("15:04:05.000"), lastAppend.Format("15:04:05.000")))
		}
	}
	// A little room for the work between the debounce firing and the
	// request reaching the model on a busy machine.
	const grace = time.Second
	for p, at := range arrived {
		shown := shownAt(p)
		switch {
		case len(shown) == 0:
			problems = append(problems, fmt.Sprintf("%s (written %s) never reached the model", p, at.Format("15:04:05.000")))
		case shown[0].arrived.Sub(at) > maxWait+grace:
			problems = append(problems, fmt.Sprintf("%s (written %s) reached the model only at %s, %s later: more than the max wait of %s (window %s)",
				p, at.Format("15:04:05.000"), shown[0].arrived.Format("15:04:05.000"), shown[0].arrived.Sub(at).Round(time.Millisecond), maxWait, window))
		}
	}
	if st, err := w.state(); err == nil && st.Phase == watchers.PhaseError {
		problems = append(problems, "the watcher is in error: "+st.Reason)
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		t.Fatalf("%d problem(s):\n  %s\n%s", len(problems), strings.Join(problems, "\n  "), w.runSummary())
	}
}
