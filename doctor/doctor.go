// Package doctor checks what tend needs from the machine and explains each
// problem with the exact command that fixes it: inotify limits against
// the watches the watchers need, the model server, the OS keyring, the
// login service, the daemon, and the versions. Every check takes its
// view of the system through Deps, so tests run without the real one.
package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/packaging"
	"github.com/tend-agent/tend/watchers"
)

// Level is how a check came out.
type Level string

const (
	OK   Level = "OK"
	Warn Level = "WARN"
	Fail Level = "FAIL"
)

// Result is one check's outcome. Fix holds commands to run, in order.
type Result struct {
	Check   string   `json:"check"`
	Level   Level    `json:"level"`
	Summary string   `json:"summary"`
	Detail  []string `json:"detail,omitempty"`
	Fix     []string `json:"fix,omitempty"`
}

// Report is every check in order.
type Report struct {
	OK     bool     `json:"ok"` // no FAIL
	Checks []Result `json:"checks"`
}

// Failed reports whether any check failed.
func (r Report) Failed() bool { return !r.OK }

// Deps is the doctor's view of the system.
type Deps struct {
	Version string // this tend's version
	GoVer   string // runtime.Version()
	GOOS    string
	GOARCH  string
	OSName  string // e.g. "Debian GNU/Linux 12 (bookworm)"; empty if unknown
	Socket  string // the daemon's socket, for messages

	// Status asks the daemon; an error wrapping api.ErrNoDaemon means none runs.
	Status func(ctx context.Context) (api.Status, error)
	// LoadWatchers reads the definitions from TEND_HOME when no daemon answers.
	LoadWatchers func() ([]*watchers.Definition, []error)
	// ReadFile reads /proc values.
	ReadFile func(path string) ([]byte, error)
	// CountDirs counts the directories under root (root included) that a
	// recursive inotify watch needs, skipping .git.
	CountDirs func(root string) (int, error)
	// Getenv reads the environment (OLLAMA_HOST, OPENAI_API_KEY).
	Getenv func(string) string
	// NewProvider contacts a model server the way a run would.
	NewProvider func(ctx context.Context, cfg dispatch.ProviderConfig) (dispatch.Provider, error)
	// KeyringProbe looks up a key that does not exist: nil means the
	// keyring answered "not found"; an error means no keyring answers.
	KeyringProbe func() error
	// Service reports the login service.
	Service func(ctx context.Context) (packaging.Status, error)
	// Executable is this binary's real path ("" if unknown).
	Executable string
}

// Run performs every check.
func Run(ctx context.Context, d Deps) Report {
	defs, daemonRes, status := checkDaemon(ctx, d)
	results := []Result{
		checkVersions(d, status),
		daemonRes,
		checkWatchers(d, defs, status),
		checkInotify(d, defs, status),
	}
	results = append(results, checkModels(ctx, d, defs)...)
	results = append(results, checkKeyring(d, defs), checkService(ctx, d))
	rep := Report{OK: true}
	for _, r := range results {
		if r.Check == "" {
			continue
		}
		if r.Level == Fail {
			rep.OK = false
		}
		rep.Checks = append(rep.Checks, r)
	}
	return rep
}

// WriteText prints one line per check, details and fix commands indented
// below it.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "%-4s  %s: %s\n", c.Level, c.Check, c.Summary)
		for _, d := range c.Detail {
			fmt.Fprintf(&b, "      %s\n", d)
		}
		for _, f := range c.Fix {
			fmt.Fprintf(&b, "        $ %s\n", f)
		}
	}
	if r.OK {
		b.WriteString("\nno failures.\n")
	} else {
		b.WriteString("\nsome checks failed: run the commands shown under them, then `tend doctor` again.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints the report as JSON.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
