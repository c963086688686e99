package main

import (
	"log/slog"

	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/runner"
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
		WebHandler: webHandler(h),
	}, nil
}
