package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/tend-agent/tend/internal/mergepatch"
	"github.com/tend-agent/tend/watchers"
)

// applyPatch merges a JSON merge patch into def.
func applyPatch(def *watchers.Definition, p map[string]any) error {
	return mergepatch.Into(def, p)
}

// parseDuration accepts Go durations plus a "d" suffix for days.
func parseDuration(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err == nil {
			return time.Duration(days) * 24 * time.Hour, nil
		}
	}
	return time.ParseDuration(s)
}
