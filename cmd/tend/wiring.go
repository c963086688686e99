package main

import (
	"log/slog"

	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/dispatch/skill"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/runner"
	"github.com/tend-agent/tend/watchers"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// daemonConfig assembles the daemon from its parts.
func daemonConfig(h home.Home, log *slog.Logger, o daemonOptions) (daemon.Config, error) {
	r := runner.New(runner.Config{Home: h, Log: log})
	return daemon.Config{
		Home:       h,
		Log:        log,
		Runner:     r,
		MaxRuns:    o.maxRuns,
		HTTPAddr:   o.http,
		Version:    version,
		Triggers:   triggersFor(h),
		WebHandler: webHandler(h),
	}, nil
}

// triggersFor builds each watcher's schedules, checks, tails and filters.
func triggersFor(h home.Home) func(*watchers.Definition) (*watchers.Triggers, error) {
	return func(def *watchers.Definition) (*watchers.Triggers, error) {
		return watchers.BuildTriggers(def, watchers.TriggerDeps{
			StateDir:  h.State(),
			ScriptDir: h.Watchers(),
			SkillOK: func(name string) error {
				_, err := skill.Load(h.Dir, name)
				return err
			},
		})
	}
}
