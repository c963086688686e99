package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/watchers"
)

// warnNoKey warns when a watcher talks to OpenAI's own server and no key
// is stored: its runs would fail there. A server of one's own (a base
// URL) may need no key, so that is left alone. It is a warning, not an
// error: the key may be stored after the watcher.
func warnNoKey(w io.Writer, d *watchers.Definition) {
	if d.Provider.Kind != "openai" || d.Provider.BaseURL != "" {
		return
	}
	name := d.Provider.KeyName
	if name == "" {
		name = "openai"
	}
	_, err := dispatch.Keys(slog.New(slog.DiscardHandler)).Get(name)
	if errors.Is(err, dispatch.ErrKeyNotFound) {
		fmt.Fprintf(w, "warning: %s uses OpenAI, but no key named %s is in the keyring and %s is not set: its runs will fail until you store one with `tend key set %s`\n",
			d.Name, name, dispatch.EnvAPIKey, name)
	}
}
