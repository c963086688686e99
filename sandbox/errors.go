//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tend-agent/tend/internal/safetext"
	"golang.org/x/sys/unix"
)

// ToolError is a refused or failed tool call. Its message is written for the
// model: it says what was wrong and what to do instead.
type ToolError struct {
	Msg string
}

func (e *ToolError) Error() string { return e.Msg }

func toolErrf(format string, a ...any) *ToolError {
	return &ToolError{Msg: fmt.Sprintf(format, a...)}
}

// shown returns how a relative path is written in tool results: a name
// with a line break or another control character is escaped (as a quoted
// string), so it cannot forge a line of a listing.
func shown(rel string) string {
	if rel == "" {
		return "."
	}
	return safetext.Name(rel)
}

// dotted is rel for a %q verb (which escapes control characters itself),
// "." for the folder.
func dotted(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// shownList writes several paths, comma-separated.
func shownList(rels []string) string {
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = shown(r)
	}
	return strings.Join(out, ", ")
}

// describeErr turns a system error met while working on rel into a
// ToolError the model can act on.
func describeErr(rel string, err error) error {
	var te *ToolError
	if errors.As(err, &te) {
		return te
	}
	var le *LedgerError
	if errors.As(err, &le) {
		return le
	}
	p := dotted(rel) // quoted with %q below, which escapes what needs it
	switch {
	case errors.Is(err, errTendOwn):
		return toolErrf("%q is (or is in, or holds) tend's own files (its settings, check scripts or program); the tools cannot reach them: leave that path alone", p)
	case errors.Is(err, unix.EXDEV):
		return toolErrf("path %q leads outside the watched folder (through a symbolic link or \"..\"); only paths inside the folder can be used", p)
	case errors.Is(err, unix.ENOENT):
		return toolErrf("%q does not exist; use file_tree or file_search to find the right path", p)
	case errors.Is(err, unix.ENOTDIR):
		return toolErrf("a part of %q is not a folder", p)
	case errors.Is(err, unix.ELOOP):
		return toolErrf("%q is (or goes through) a symbolic link that cannot be followed here", p)
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return toolErrf("permission denied for %q", p)
	case errors.Is(err, unix.EEXIST):
		return toolErrf("%q already exists and is never replaced silently; choose another name", p)
	case errors.Is(err, unix.EISDIR):
		return toolErrf("%q is a folder, not a file", p)
	case errors.Is(err, unix.ENOTEMPTY):
		return toolErrf("folder %q is not empty", p)
	case errors.Is(err, unix.ENOSPC):
		return toolErrf("no space left on the device while working on %q", p)
	case errors.Is(err, unix.ENAMETOOLONG):
		return toolErrf("the name %q is too long", p)
	}
	return toolErrf("%s: %v", p, err)
}
