package main

import (
	"context"
	"log/slog"

	"github.com/tend-agent/tend/internal/home"
)

func startTray(ctx context.Context, h home.Home, log *slog.Logger) {
	log.Warn("the menu-bar icon is not part of this build yet")
}
