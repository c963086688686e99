package main

import (
	"net/http"

	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/web"
)

// webHandler is the history viewer the daemon serves on its loopback
// listener (behind its token guard).
func webHandler(h home.Home) http.Handler { return web.Handler() }
