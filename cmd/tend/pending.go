package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/tend-agent/tend/internal/home"
)

func webHandler(h home.Home) http.Handler { return nil }

func startTray(ctx context.Context, h home.Home, log *slog.Logger) {
	log.Warn("the menu-bar icon is not part of this build yet")
}
