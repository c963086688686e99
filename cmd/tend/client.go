package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/internal/home"
)

func (g *globalOptions) resolveHome() (home.Home, error) { return home.Resolve(g.home) }

// client connects to the daemon of this home.
func (g *globalOptions) client() (*api.Client, error) {
	h, err := g.resolveHome()
	if err != nil {
		return nil, err
	}
	return api.NewClient(h.Socket()), nil
}

// signalContext ends on Ctrl-C or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// withClient runs f with a signal-aware context and a client of the
// daemon; most commands are one call of it.
func (g *globalOptions) withClient(f func(context.Context, *api.Client) error) error {
	ctx, cancel := signalContext()
	defer cancel()
	c, err := g.client()
	if err != nil {
		return err
	}
	return f(ctx, c)
}
