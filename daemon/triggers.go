package daemon

import (
	"github.com/tend-agent/tend/dispatch/skill"
	"github.com/tend-agent/tend/internal/clock"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/watchers"
)

// DefaultTriggers builds each watcher's schedules, checks, tails and
// filters on the given clock, with skills looked up in the home.
func DefaultTriggers(h home.Home, c clock.Clock) func(*watchers.Definition) (*watchers.Triggers, error) {
	return func(def *watchers.Definition) (*watchers.Triggers, error) {
		return watchers.BuildTriggers(def, watchers.TriggerDeps{
			Clock:     c,
			StateDir:  h.State(),
			ScriptDir: h.Watchers(),
			SkillOK: func(name string) error {
				_, err := skill.Load(h.Dir, name)
				return err
			},
		})
	}
}
