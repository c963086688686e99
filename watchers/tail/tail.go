// Package tail follows a growing log file inside a watched folder and turns
// it into verdicts: a line matching the fail pattern, a line matching the ok
// pattern, or silence (no growth for a set time).
//
// The caller drives a Follower: it calls Poll on file-system events for the
// file and on a timer, passing the current time, and dispatches once for each
// verdict Poll returns, with the verdict's LastLines. The follower survives
// rotation (the path replaced by a new file: the rest of the old file is read
// first, then the new one from its start) and truncation (the file shrinks:
// reading restarts at 0). A file that does not exist yet is waited for and
// read from its start when it appears. Nothing here starts goroutines.
//
// One Poll consumes every new complete line and gives at most one verdict
// (fail beats ok), so a burst of matching lines dispatches once; Matches says
// how many lines matched. A truncation is noticed when the file is shorter
// than what was already read; a file truncated and refilled past that point
// between two polls looks like growth, so poll on every file event.
package tail

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Verdict kinds.
const (
	Fail    = "fail"
	OK      = "ok"
	Silence = "silence"
)

// DefaultLines is how many last lines a verdict carries by default.
const DefaultLines = 50

// Verdict is what one Poll found.
type Verdict struct {
	Kind      string   // Fail, OK or Silence
	Line      string   // the matching line (the first fail line, or the last ok line); empty for silence
	Matches   int      // how many new lines matched Kind in this poll (0 for silence)
	Reason    string   // one sentence for people and the model
	LastLines []string // the last lines of the file, oldest first, ending at the end of what was read
}

// Config describes what to follow and what to look for.
type Config struct {
	Path string // absolute path of the file
	// Root is the watched folder holding Path. The model can write it, so
	// when set, Path is opened beneath Root and never through a symbolic
	// link: a link put in the log's place cannot lead the tail outside.
	Root     string
	OK, Fail *regexp.Regexp // either may be nil; Fail is checked first on each line
	Silence  time.Duration  // 0: no silence verdicts
	Lines    int            // last lines to keep; 0 means DefaultLines
}

// Validate checks a tail definition: file (relative to root, or absolute)
// must lie inside root after cleaning, also once symbolic links are resolved,
// and each non-empty pattern must compile.
func Validate(root, file, okRe, failRe string) error {
	if _, err := Resolve(root, file); err != nil {
		return err
	}
	if _, err := compile("ok", okRe); err != nil {
		return err
	}
	_, err := compile("fail", failRe)
	return err
}

// Resolve returns the absolute, cleaned path of file within root, or an error
// when it points outside root or at root itself.
func Resolve(root, file string) (string, error) {
	if strings.TrimSpace(file) == "" {
		return "", errors.New("tail file is empty: give a file inside the watched folder, e.g. --tail logs/app.log")
	}
	root = filepath.Clean(root)
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	if !inside(root, p) {
		return "", fmt.Errorf("tail file %q is outside the watched folder %s: give a path inside it, e.g. logs/app.log", file, root)
	}
	// A symlink inside the folder may still point out of it.
	if rr, err := filepath.EvalSymlinks(root); err == nil {
		if rp, err := filepath.EvalSymlinks(p); err == nil && !inside(rr, rp) {
			return "", fmt.Errorf("tail file %q resolves to %s, outside the watched folder %s: give a file inside it", file, rp, root)
		}
	}
	return p, nil
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Compile compiles the ok and fail patterns of a definition; an empty
// pattern gives nil.
func Compile(okRe, failRe string) (ok, fail *regexp.Regexp, err error) {
	if ok, err = compile("ok", okRe); err != nil {
		return nil, nil, err
	}
	if fail, err = compile("fail", failRe); err != nil {
		return nil, nil, err
	}
	return ok, fail, nil
}

func compile(kind, re string) (*regexp.Regexp, error) {
	if re == "" {
		return nil, nil
	}
	c, err := regexp.Compile(re)
	if err != nil {
		return nil, fmt.Errorf("%s pattern %q does not compile (%v): fix the regular expression (Go RE2 syntax, e.g. \"(?i)error|fatal\")", kind, re, err)
	}
	return c, nil
}

// ValidateConfig checks a Config before following: an absolute path,
// something to look for, and sane numbers.
func ValidateConfig(c Config) error {
	if !filepath.IsAbs(c.Path) {
		return fmt.Errorf("tail file %q is not an absolute path", c.Path)
	}
	if c.OK == nil && c.Fail == nil && c.Silence == 0 {
		return errors.New("tail has nothing to look for: give --ok-pattern, --fail-pattern or --silence")
	}
	if c.Silence < 0 || (c.Silence > 0 && c.Silence < time.Second) {
		return fmt.Errorf("silence %s is out of range: use at least 1s, e.g. --silence 10m", c.Silence)
	}
	if c.Lines < 0 {
		return fmt.Errorf("last lines %d is negative: use 0 for the default of %d", c.Lines, DefaultLines)
	}
	return nil
}

// sameFile reports whether two infos describe the same file (device and inode).
func sameFile(a, b os.FileInfo) bool { return a != nil && b != nil && os.SameFile(a, b) }
