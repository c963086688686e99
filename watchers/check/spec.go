package check

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Timeout limits.
const (
	DefaultTimeout = 2 * time.Minute
	MaxTimeout     = 30 * time.Minute
)

// Env is what the check learns about its watcher through the environment.
type Env struct {
	Name     string    // TEND_WATCHER_NAME
	StateDir string    // TEND_WATCHER_STATE_DIR, created before the run
	LastRun  time.Time // TEND_WATCHER_LAST_RUN, RFC 3339; zero gives ""
}

// Spec describes one check. Exactly one of Command and Script is set.
type Spec struct {
	Command string        // run with sh -c
	Script  string        // path to a stored script file, run directly (relative paths are from Dir)
	Dir     string        // the watched folder, the working directory
	Env     Env           // values exported to the check
	Timeout time.Duration // 0 means DefaultTimeout; above MaxTimeout is an error
	// Now is the clock used to measure Duration; nil means time.Now.
	Now func() time.Time
}

// EffectiveTimeout is the timeout Run applies.
func (s Spec) EffectiveTimeout() time.Duration {
	if s.Timeout == 0 {
		return DefaultTimeout
	}
	return s.Timeout
}

// Validate checks a spec before it is stored: one of Command or Script, a
// command whose first word is found on PATH (or is a shell keyword, or a path
// to an existing executable), an executable script, an existing folder and a
// timeout within limits.
func Validate(spec Spec) error {
	cmd := strings.TrimSpace(spec.Command)
	switch {
	case cmd == "" && spec.Script == "":
		return errors.New("check has no command: give --check CMD or a script file")
	case cmd != "" && spec.Script != "":
		return errors.New("check has both a command and a script file: keep only one")
	}
	if spec.Timeout < 0 {
		return fmt.Errorf("check timeout %s is negative: use a duration between 1s and %s", spec.Timeout, MaxTimeout)
	}
	if spec.Timeout > MaxTimeout {
		return fmt.Errorf("check timeout %s is too long: at most %s is allowed", spec.Timeout, MaxTimeout)
	}
	if spec.Dir != "" {
		fi, err := os.Stat(spec.Dir)
		if err != nil {
			return fmt.Errorf("check folder %s: %w", spec.Dir, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("check folder %s is not a directory", spec.Dir)
		}
	}
	if cmd != "" {
		return validateCommand(cmd, spec.Dir)
	}
	return validateExecutable("check script", resolve(spec.Script, spec.Dir))
}

func resolve(p, dir string) string {
	if filepath.IsAbs(p) || dir == "" {
		return p
	}
	return filepath.Join(dir, p)
}

// shellWords are keywords and builtins a command may start with that are not
// programs on PATH.
var shellWords = map[string]bool{
	"!": true, "{": true, "(": true, "[": true, "[[": true, ".": true, ":": true,
	"if": true, "for": true, "while": true, "until": true, "case": true,
	"cd": true, "export": true, "set": true, "unset": true, "test": true,
	"exit": true, "true": true, "false": true, "echo": true, "printf": true,
	"read": true, "exec": true, "eval": true, "source": true, "command": true,
	"return": true, "trap": true, "umask": true, "wait": true, "type": true,
}

func validateCommand(cmd, dir string) error {
	word := firstWord(cmd)
	if word == "" || shellWords[word] || strings.ContainsAny(word, "$`*?") {
		return nil // a shell construct or an expansion: only the shell knows
	}
	if rest, ok := strings.CutPrefix(word, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			word = filepath.Join(home, rest)
		}
	}
	if strings.Contains(word, "/") {
		p := resolve(word, dir)
		if err := validateExecutable("check command "+quote(cmd), p); err != nil {
			return err
		}
		return nil
	}
	if _, err := exec.LookPath(word); err != nil {
		return fmt.Errorf("check command %s: %q is not on PATH and is not a path to an executable file: install it, or give its full path", quote(cmd), word)
	}
	return nil
}

func validateExecutable(what, p string) error {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %s does not exist: create it or fix the path", what, p)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %s is not a regular file", what, p)
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s: %s is not executable: run chmod +x %s", what, p, p)
	}
	return nil
}

// firstWord returns the program a shell command line starts with, skipping
// leading NAME=value assignments and stripping simple quotes.
func firstWord(cmd string) string {
	for {
		cmd = strings.TrimLeft(cmd, " \t\n")
		if cmd != "" && (cmd[0] == '\'' || cmd[0] == '"') {
			// a quoted program path, which may hold spaces
			if j := strings.IndexByte(cmd[1:], cmd[0]); j >= 0 {
				return cmd[1 : 1+j]
			}
		}
		end := strings.IndexAny(cmd, " \t\n;|&<>()")
		if end == 0 {
			return string(cmd[0]) // "(" or "{"-like start: a shell construct
		}
		w := cmd
		if end > 0 {
			w = cmd[:end]
		}
		if isAssignment(w) {
			cmd = cmd[len(w):]
			continue
		}
		return strings.Trim(w, `"'`)
	}
}

func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i, r := range w[:eq] {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return fmt.Sprintf("%q", s)
}
