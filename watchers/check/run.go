package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Outcome of a check run.
type Outcome string

// Outcomes.
const (
	Quiet     Outcome = "quiet"     // exit 0, nothing on stdout: nothing happens
	Output    Outcome = "output"    // exit 0, something on stdout: goes to the model
	Failed    Outcome = "failed"    // could not start, or non-zero exit: recorded, not sent
	Timeout   Outcome = "timeout"   // killed after the timeout: recorded, not sent
	Cancelled Outcome = "cancelled" // killed because ctx was cancelled (pause, panic, shutdown)
)

// Result of one check run.
type Result struct {
	Outcome  Outcome
	Output   string // standard output, capped at MaxOutput (head and tail kept)
	Stderr   string // standard error, capped the same way; kept for the failure reason
	ExitCode int    // -1 when the process did not exit by itself
	Err      error  // why the check failed, timed out or was cancelled; nil otherwise
	Duration time.Duration
}

// waitDelay bounds how long Run waits for output pipes held open by
// processes that escaped the process group.
const waitDelay = 2 * time.Second

// Run runs the check once and reports what it did. It never panics and
// always returns a Result; a spec that fails Validate gives Outcome Failed.
func Run(ctx context.Context, spec Spec) Result {
	now := spec.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	res := run(ctx, spec)
	res.Duration = now().Sub(start)
	return res
}

func run(ctx context.Context, spec Spec) Result {
	if err := Validate(spec); err != nil {
		return Result{Outcome: Failed, ExitCode: -1, Err: err}
	}
	if spec.Dir == "" {
		return Result{Outcome: Failed, ExitCode: -1, Err: errors.New("check has no folder to run in: attach the watcher to a folder first")}
	}
	if spec.Env.StateDir != "" {
		if err := os.MkdirAll(spec.Env.StateDir, 0o700); err != nil {
			return Result{Outcome: Failed, ExitCode: -1, Err: fmt.Errorf("creating check state folder: %w", err)}
		}
	}
	tctx, cancel := context.WithTimeout(ctx, spec.EffectiveTimeout())
	defer cancel()

	var cmd *exec.Cmd
	if strings.TrimSpace(spec.Command) != "" {
		cmd = exec.CommandContext(tctx, "/bin/sh", "-c", spec.Command)
	} else {
		cmd = exec.CommandContext(tctx, resolve(spec.Script, spec.Dir))
	}
	cmd.Dir = spec.Dir
	cmd.Env = append(environ(),
		"TEND_WATCHER_NAME="+spec.Env.Name,
		"TEND_WATCHER_STATE_DIR="+spec.Env.StateDir,
		"TEND_WATCHER_LAST_RUN="+lastRun(spec.Env.LastRun),
	)
	stdout, stderr := newCapture(MaxOutput), newCapture(MaxOutput)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = waitDelay

	err := cmd.Start()
	if err != nil {
		return Result{Outcome: Failed, ExitCode: -1, Err: fmt.Errorf("starting check: %w", err)}
	}
	err = cmd.Wait()
	// Leave nothing behind: background children of a finished check die
	// with it.
	_ = killGroup(cmd)

	res := Result{Output: stdout.String(), Stderr: stderr.String(), ExitCode: cmd.ProcessState.ExitCode()}
	switch {
	case err == nil:
		if strings.TrimSpace(res.Output) == "" {
			res.Outcome = Quiet
		} else {
			res.Outcome = Output
		}
	case ctx.Err() != nil:
		res.Outcome = Cancelled
		res.Err = fmt.Errorf("check cancelled: %w", context.Cause(ctx))
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		res.Outcome = Timeout
		res.Err = fmt.Errorf("check timed out after %s and was stopped (raise the timeout, at most %s, or make the check faster)", spec.EffectiveTimeout(), MaxTimeout)
	default:
		res.Outcome = Failed
		res.Err = failure(err, res)
	}
	return res
}

func failure(err error, res Result) error {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return fmt.Errorf("running check: %w", err)
	}
	reason := lastLine(res.Stderr)
	if reason == "" {
		reason = lastLine(res.Output)
	}
	if res.ExitCode < 0 {
		if reason == "" {
			return fmt.Errorf("check was killed (%s)", ee)
		}
		return fmt.Errorf("check was killed (%s): %s", ee, reason)
	}
	if reason == "" {
		return fmt.Errorf("check exited with status %d and printed no error", res.ExitCode)
	}
	return fmt.Errorf("check exited with status %d: %s", res.ExitCode, reason)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return strings.TrimSpace(s)
}

// hiddenEnv are variables of the daemon a check never sees: tend's own API
// key fallback must not reach a script whose output goes to the model.
var hiddenEnv = map[string]bool{"OPENAI_API_KEY": true}

func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !hiddenEnv[name] {
			env = append(env, kv)
		}
	}
	return env
}

func lastRun(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}
