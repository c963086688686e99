package daemon

import "github.com/tend-agent/tend/watchers"

// Recoverer is a Runner that can settle runs a crash interrupted (see
// runner.Runner.Recover).
type Recoverer interface {
	Recover(def *watchers.Definition, fold func(paths []string) error)
}

// recoverHook is the engines' start-up recovery, when the runner has one.
func (d *Daemon) recoverHook() func(*watchers.Definition, func([]string) error) {
	if r, ok := d.cfg.Runner.(Recoverer); ok {
		return r.Recover
	}
	return nil
}
