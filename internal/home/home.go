// Package home locates TEND_HOME and the files tend keeps there.
package home

import (
	"fmt"
	"os"
	"path/filepath"
)

// Home is a resolved TEND_HOME.
type Home struct{ Dir string }

// Resolve picks the home folder: the flag if set, then $TEND_HOME, then
// the user config dir.
func Resolve(flag string) (Home, error) {
	dir := flag
	if dir == "" {
		dir = os.Getenv("TEND_HOME")
	}
	if dir == "" {
		cfg, err := os.UserConfigDir()
		if err != nil {
			return Home{}, fmt.Errorf("finding the config folder (set TEND_HOME): %w", err)
		}
		dir = filepath.Join(cfg, "tend")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Home{}, err
	}
	return Home{Dir: abs}, nil
}

func (h Home) Watchers() string { return filepath.Join(h.Dir, "watchers") }
func (h Home) State() string    { return filepath.Join(h.Dir, "state") }
func (h Home) Sessions() string { return filepath.Join(h.Dir, "sessions") }
func (h Home) Runs() string     { return filepath.Join(h.Dir, "runs") }
func (h Home) Skills() string   { return filepath.Join(h.Dir, "skills") }
func (h Home) Checks() string   { return filepath.Join(h.Dir, "checks") }
func (h Home) Lock() string     { return filepath.Join(h.Dir, "tend.lock") }
func (h Home) Socket() string   { return filepath.Join(h.Dir, "tend.sock") }
func (h Home) Token() string    { return filepath.Join(h.Dir, "http.token") }

// Session is the chat session file of one watcher.
func (h Home) Session(id string) string { return filepath.Join(h.Sessions(), id+".jsonl") }

// Ensure creates the folders tend writes to, private to the user.
func (h Home) Ensure() error {
	for _, d := range []string{h.Dir, h.Watchers(), h.State(), h.Sessions(), h.Runs()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", d, err)
		}
	}
	return nil
}
