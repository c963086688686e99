package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/watchers"
)

func triggersFor(h home.Home) func(*watchers.Definition) (*watchers.Triggers, error) { return nil }

func webHandler(h home.Home) http.Handler { return nil }

func startTray(ctx context.Context, h home.Home, log *slog.Logger) {
	log.Warn("the menu-bar icon is not part of this build yet")
}
