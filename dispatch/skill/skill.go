// Package skill loads named, reusable instruction texts ("skills") from
// TEND_HOME/skills/{name}.md and expands their variables.
//
// A watcher that names a skill (--skill NAME) uses the skill's text as its
// instructions. The text may contain {folder}, {watcher}, {changed} and
// {timestamp}; Expand replaces them in a single pass, so a value that itself
// contains "{watcher}" (a file name, say) is never expanded again, and any
// other {word} is left exactly as written.
package skill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxNameLen is the longest skill name accepted (the watcher-name rule).
const MaxNameLen = 63

// MaxSize is the largest skill file Load accepts.
const MaxSize = 256 << 10

// MaxChanged is how many changed paths {changed} lists before one overflow
// line, as in the prompt.
const MaxChanged = 20

// Dir returns the folder that holds the skills of a TEND_HOME.
func Dir(home string) string { return filepath.Join(home, "skills") }

// Path returns the file of the named skill (the name is not validated).
func Path(home, name string) string { return filepath.Join(Dir(home), name+".md") }

// ValidateName checks a skill name with the same rule as watcher names:
// 1 to 63 characters, each a lowercase letter, a digit, '-' or '_'.
func ValidateName(name string) error {
	if name == "" {
		return errors.New("skill name is empty: use lowercase letters, digits, '-' or '_', e.g. \"file-invoices\"")
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("skill name %q is %d characters long: at most %d are allowed", name, len(name), MaxNameLen)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("skill name %q contains %q: use only lowercase letters, digits, '-' or '_', e.g. \"file-invoices\"", name, r)
		}
	}
	return nil
}

// Load reads the text of the named skill from home/skills/{name}.md.
func Load(home, name string) (string, error) {
	if err := ValidateName(name); err != nil {
		return "", err
	}
	p := Path(home, name)
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("skill %q not found: create %s with the instruction text (variables: {folder}, {watcher}, {changed}, {timestamp})", name, p)
	}
	if err != nil {
		return "", fmt.Errorf("reading skill %s: %w", name, err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("skill %q: %s is a directory, not a file: replace it with a Markdown file holding the instructions", name, p)
	}
	if fi.Size() > MaxSize {
		return "", fmt.Errorf("skill %q: %s is %d bytes, more than the %d allowed: shorten it", name, p, fi.Size(), MaxSize)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("reading skill %s: %w", name, err)
	}
	text := string(b)
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("skill %q: %s is empty: write the instructions into it", name, p)
	}
	return text, nil
}
