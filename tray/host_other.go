//go:build !((linux || freebsd || openbsd || netbsd) && !android)

package tray

import (
	"context"
	"log/slog"
)

// waitForHost: on macOS the menu bar is always there.
func waitForHost(ctx context.Context, log *slog.Logger) error { return nil }
