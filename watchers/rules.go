package watchers

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	"github.com/tend-agent/tend/fingerprint"
)

// rulesFileChanged reports whether a batch of events names the folder's
// .tendignore: the rules of what the watcher sees changed.
func (e *Engine) rulesFileChanged(paths []string) bool {
	return slices.Contains(paths, filepath.Join(e.def.Path, fingerprint.TendIgnoreFile))
}

// reloadRules takes up a changed .tendignore at once. The event source is
// opened again, so that what the file now ignores stops waking the
// watcher and what it no longer ignores is watched; the next look
// rebuilds the fingerprint in full under the new rules (Diff then leaves
// out what either the old or the new rules ignore, so neither shows up as
// removed or added). Events lost between the two sources are found by
// that full rebuild.
func (e *Engine) reloadRules() {
	e.log.Info("the folder's .tendignore changed; applying it")
	if e.src != nil {
		e.st.EventID = e.src.LastEventID()
	}
	// The source lives until the engine closes it (shutdown or the next
	// reload), not for the length of one context.
	if err := e.openSource(context.Background()); err != nil {
		e.fail(err)
		e.arm(timerRetry, 5*time.Second)
		return
	}
	e.rescan = true
	e.dirty = map[string]struct{}{}
}

// rebase re-expresses the baseline, and the trees of a run in progress,
// under the live tree's rules once these changed: what changed where both
// the old and the new rules look stays pending, what the new rules ignore
// leaves it, and what they let in is taken as it is (it was there
// already). With unchanged rules it does nothing.
func (e *Engine) rebase() {
	if e.baseline == nil || e.live == nil {
		return
	}
	b := e.baseline.Rebase(e.live)
	if b == e.baseline {
		return
	}
	e.baseline = b
	if r := e.run; r != nil {
		r.handled = r.handled.Rebase(e.live)
		r.effects = r.effects.Rebase(e.live)
	}
	e.saveBaseline()
}
