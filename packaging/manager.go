package packaging

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Manager installs, removes and inspects tend's login service.
type Manager interface {
	Install(ctx context.Context, opts InstallOptions) (Result, error)
	Uninstall(ctx context.Context, opts UninstallOptions) (Result, error)
	Status(ctx context.Context) (Status, error)
}

// InstallOptions say what to install.
type InstallOptions struct {
	// Binary is the tend binary the service runs. It is resolved with
	// filepath.EvalSymlinks, so the service points at the real file.
	Binary string
	// NoStart writes the file without asking the service manager to load,
	// enable or start anything (for packagers and tests).
	NoStart bool
	// Home is a TEND_HOME to pin in the service's environment; empty
	// leaves it to tend's default.
	Home string
	// Env is the environment the service keeps (see CaptureEnv).
	Env map[string]string
	// EnvDir is the TEND_HOME folder the service uses; on Linux the
	// environment goes into EnvDir/service.env (EnvFileName). Empty
	// writes no environment file.
	EnvDir string
}

// UninstallOptions say how to uninstall.
type UninstallOptions struct {
	// NoStart removes the file without asking the service manager to stop
	// or disable the service.
	NoStart bool
}

// Result reports what Install or Uninstall did.
type Result struct {
	Path     string   // the unit or plist file
	Changed  bool     // the file was written or removed
	Commands []string // service-manager commands that were run, in order
	// ManagerUnavailable is set when no user service manager answered; the
	// file was still written or removed and Message says what to run.
	ManagerUnavailable bool
	Message            string // one or two lines for the user
}

// Status describes the installed service.
type Status struct {
	Manager   string // "systemd" or "launchd"
	Path      string // the unit or plist file
	Installed bool   // the file exists
	Binary    string // the binary the installed file runs
	Home      string // the TEND_HOME it pins, if any
	// Reachable reports whether the service manager answered; Active,
	// Enabled and State mean something only when it did.
	Reachable bool
	Active    bool
	Enabled   bool
	State     string // the manager's word for it: "active", "inactive", "running", ...
	Detail    string // why the manager could not be asked, or other notes
}

// Runner runs a service-manager command and returns its combined output.
// A non-zero exit is an error; the output is returned with it.
type Runner interface {
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
}

// ExecRunner runs commands with os/exec.
type ExecRunner struct{}

// Run runs name with args and returns stdout and stderr together.
func (ExecRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.Bytes(), err
}

// Env is everything a Manager takes from the machine.
type Env struct {
	Home          string // the user's home folder
	UID           int    // the user's id, for launchctl's gui/<uid> domain
	XDGConfigHome string // $XDG_CONFIG_HOME; empty means ~/.config
	Runner        Runner
	LookPath      func(file string) (string, error)
}

// SystemEnv describes the current user on this machine.
func SystemEnv() (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, fmt.Errorf("finding the home folder: %w (set HOME)", err)
	}
	return Env{
		Home:          home,
		UID:           os.Getuid(),
		XDGConfigHome: os.Getenv("XDG_CONFIG_HOME"),
		Runner:        ExecRunner{},
		LookPath:      exec.LookPath,
	}, nil
}

// NewManager returns the manager for goos ("linux" or "darwin"); on any
// other system its methods return an error saying so.
func NewManager(goos string, env Env) Manager {
	if env.Runner == nil {
		env.Runner = ExecRunner{}
	}
	if env.LookPath == nil {
		env.LookPath = exec.LookPath
	}
	switch goos {
	case "linux":
		return &systemdManager{env: env}
	case "darwin":
		return &launchdManager{env: env}
	}
	return unsupported{goos: goos}
}

type unsupported struct{ goos string }

func (u unsupported) err() error {
	return fmt.Errorf("tend service is supported on linux (systemd) and macOS (launchd), not on %s: start `tend daemon` with your system's own tools", u.goos)
}

func (u unsupported) Install(context.Context, InstallOptions) (Result, error) {
	return Result{}, u.err()
}

func (u unsupported) Uninstall(context.Context, UninstallOptions) (Result, error) {
	return Result{}, u.err()
}

func (u unsupported) Status(context.Context) (Status, error) { return Status{}, u.err() }

// resolveInstall checks the options and returns the binary's real path and
// the absolute TEND_HOME (or "").
func resolveInstall(opts InstallOptions) (binary, home string, err error) {
	if opts.Binary == "" {
		return "", "", fmt.Errorf("no binary given: pass the path of the tend binary to install")
	}
	abs, err := filepath.Abs(opts.Binary)
	if err != nil {
		return "", "", fmt.Errorf("resolving binary %s: %w", opts.Binary, err)
	}
	binary, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return "", "", fmt.Errorf("resolving binary %s: %w", opts.Binary, err)
	}
	fi, err := os.Stat(binary)
	if err != nil {
		return "", "", fmt.Errorf("checking binary %s: %w", binary, err)
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return "", "", fmt.Errorf("binary %s is not an executable file: pass the path of the tend binary", binary)
	}
	if opts.Home != "" {
		if home, err = filepath.Abs(opts.Home); err != nil {
			return "", "", fmt.Errorf("resolving TEND_HOME %s: %w", opts.Home, err)
		}
	}
	return binary, home, nil
}

// run runs one manager command and records it in res.
func run(ctx context.Context, r Runner, res *Result, name string, args ...string) ([]byte, error) {
	res.Commands = append(res.Commands, name+" "+strings.Join(args, " "))
	out, err := r.Run(ctx, name, args...)
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			return out, fmt.Errorf("running %s %s: %w", name, strings.Join(args, " "), err)
		}
		return out, fmt.Errorf("running %s %s: %w: %s", name, strings.Join(args, " "), err, msg)
	}
	return out, nil
}

// shellQuote quotes a path for a command line the user can paste.
func shellQuote(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

func uidString(uid int) string { return strconv.Itoa(uid) }
