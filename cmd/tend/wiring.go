package main

import (
	"log/slog"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"

	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/runner"
)

// version is set at build time with -ldflags "-X main.version=…"
// (scripts/build.sh does).
var version = defaultVersion

const defaultVersion = "0.1.0-dev"

// daemonConfig assembles the daemon from its parts.
func daemonConfig(h home.Home, log *slog.Logger, o daemonOptions) (daemon.Config, error) {
	r := runner.New(runner.Config{Home: h, Log: log, StepHook: crashHook(log)})
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

// crashHook is for crash tests only: with TEND_TEST_CRASH_AT=N the daemon
// kills itself with SIGKILL at the N-th write-ahead step of any run (each
// change has three: intent, applied, done), so a test can stop it at an
// exact point of a change. Unset, it is nil and costs nothing.
func crashHook(log *slog.Logger) func(string) {
	n, err := strconv.Atoi(os.Getenv("TEND_TEST_CRASH_AT"))
	if err != nil || n <= 0 {
		return nil
	}
	var count atomic.Int64
	return func(point string) {
		if count.Add(1) == int64(n) {
			log.Warn("TEND_TEST_CRASH_AT: killing the daemon", "step", n, "point", point)
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	}
}
