package packaging

import (
	"fmt"
	"strings"
)

// Summary describes the status in a few lines for `tend service status`.
func (s Status) Summary() string {
	var b strings.Builder
	if s.Installed {
		fmt.Fprintf(&b, "installed: %s\n", s.Path)
		if s.Binary != "" {
			fmt.Fprintf(&b, "runs:      %s daemon", s.Binary)
			if s.Home != "" {
				fmt.Fprintf(&b, " (TEND_HOME=%s)", s.Home)
			}
			b.WriteString("\n")
		}
	} else {
		fmt.Fprintf(&b, "not installed (no %s); `tend service install` sets it up\n", s.Path)
	}
	switch {
	case !s.Reachable:
		fmt.Fprintf(&b, "%s:   state unknown (%s)\n", s.Manager, s.Detail)
	case s.Active:
		fmt.Fprintf(&b, "%s:   %s, %s\n", s.Manager, s.State, startsAtLogin(s.Enabled))
	default:
		fmt.Fprintf(&b, "%s:   %s (not running), %s\n", s.Manager, s.State, startsAtLogin(s.Enabled))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func startsAtLogin(enabled bool) string {
	if enabled {
		return "starts at login"
	}
	return "does not start at login"
}
