package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/tend-agent/tend/watchers"
)

// applyPatch sets fields of def from a JSON-shaped patch.
func applyPatch(def *watchers.Definition, p map[string]any) error {
	var m map[string]any
	raw, _ := json.Marshal(def)
	json.Unmarshal(raw, &m)
	for k, v := range p {
		m[k] = v
	}
	raw, _ = json.Marshal(m)
	return json.Unmarshal(raw, def)
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
