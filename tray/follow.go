package tray

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/tend-agent/tend/api"
)

// Backoff between reconnection attempts when the daemon does not answer.
const (
	minBackoff = 250 * time.Millisecond
	maxBackoff = 15 * time.Second
)

// source is what the follower needs from the daemon's API.
type source interface {
	List(ctx context.Context) ([]api.View, error)
	Events(ctx context.Context, fn func(api.Event)) error
}

// follow keeps the state in step with the daemon until ctx ends: list the
// watchers, follow the event stream, and when the stream breaks (daemon
// stopped or restarted) mark the tray disconnected and try again with a
// doubling backoff. send hands a change to the tray's loop goroutine.
func follow(ctx context.Context, src source, viewer func() bool, log *slog.Logger, send func(func(*state))) {
	backoff := minBackoff
	lost := false
	for ctx.Err() == nil {
		views, err := src.List(ctx)
		if err == nil {
			v := viewer()
			send(func(s *state) {
				s.connected, s.problem, s.viewer = true, "", v
				s.replace(views)
			})
			if lost {
				log.Info("tray: reconnected to the tend daemon")
				lost = false
			}
			backoff = minBackoff
			err = src.Events(ctx, func(ev api.Event) {
				relist := make(chan bool, 1)
				send(func(s *state) { relist <- s.apply(ev) })
				select {
				case r := <-relist:
					if !r {
						return
					}
				case <-ctx.Done():
					return
				}
				if views, err := src.List(ctx); err == nil {
					send(func(s *state) { s.replace(views) })
				}
			})
			if err == nil {
				err = errors.New("the daemon closed the event stream")
			}
		}
		if ctx.Err() != nil {
			return
		}
		problem := shortProblem(err)
		send(func(s *state) { s.connected, s.problem = false, problem })
		if !lost {
			log.Warn("tray: lost the tend daemon; reconnecting", "err", err)
			lost = true
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

// shortProblem is an error cut to fit a menu line.
func shortProblem(err error) string {
	if errors.Is(err, api.ErrNoDaemon) {
		return "no tend daemon is running"
	}
	s := err.Error()
	if i := strings.IndexAny(s, ":\n"); i > 0 && len(s) > 60 {
		s = s[:i]
	}
	return s
}
