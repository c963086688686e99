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
