//go:build !darwin || cgo

package tray

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/tend-agent/tend/api"
)

// Run shows the tray icon and menu until ctx ends or Quit is chosen, as a
// client of the daemon behind c. With no tray host it logs NoTrayMessage
// once and returns an error wrapping ErrNoTray; the caller (the daemon)
// runs on. On macOS it must be called from the main goroutine (Cocoa
// wants the main thread); on Linux it runs beside anything. Only one tray
// can run in a process (fyne.io/systray keeps global state).
func Run(ctx context.Context, c *api.Client, opts Options) error {
	return run(ctx, c, opts)
}

// ran is set by the first Run: fyne.io/systray keeps global state and
// cannot start twice in one process.
var ran atomic.Bool

type app struct {
	c       daemonAPI
	opts    Options
	log     *slog.Logger
	updates chan func(*state)
	clicks  chan click
}

func run(ctx context.Context, c daemonAPI, opts Options) error {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if err := waitForHost(ctx, opts.Log); err != nil {
		if errors.Is(err, ErrNoTray) {
			opts.Log.Warn(NoTrayMessage, "why", err.Error())
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	if ran.Swap(true) {
		return errors.New("the tray already ran in this process (fyne.io/systray starts once); restart tend to show it again")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := &app{c: c, opts: opts, log: opts.Log, updates: make(chan func(*state), 64), clicks: make(chan click, 8)}
	loopDone := make(chan struct{})
	started := make(chan struct{})
	stop := startNative(func() {
		v := newView(ctx, a.clicks, 0)
		go func() {
			a.loop(ctx, v, started)
			close(loopDone)
			quitNative()
		}()
	}, started)
	<-loopDone
	stop()
	return nil
}

func (a *app) viewerOK() bool {
	if a.opts.ViewerURL == nil || a.opts.OpenURL == nil {
		return false
	}
	_, err := a.opts.ViewerURL()
	return err == nil
}

// loop owns the state and the view: it folds in what the follower sends,
// re-renders, and turns clicks into actions.
func (a *app) loop(ctx context.Context, v *view, started <-chan struct{}) {
	st := newState()
	st.folders = a.opts.OpenFolder != nil
	v.render(Build(st.snapshot()))
	go follow(ctx, a.c, a.viewerOK, a.log, func(f func(*state)) {
		select {
		case a.updates <- f:
		case <-ctx.Done():
		}
	})
	for {
		select {
		case <-ctx.Done():
			return
		case <-started:
			started = nil
			v.resetIcon()
			v.render(Build(st.snapshot()))
		case f := <-a.updates:
			f(st)
		drain:
			for {
				select {
				case f := <-a.updates:
					f(st)
				default:
					break drain
				}
			}
			v.render(Build(st.snapshot()))
		case cl := <-a.clicks:
			act, ok := v.action(cl)
			if !ok {
				continue
			}
			if act.Kind == Quit {
				a.log.Info("tray: quit chosen")
				if a.opts.OnQuit != nil {
					a.opts.OnQuit()
				}
				return
			}
			go func() {
				if err := perform(ctx, a.c, a.opts, act); err != nil {
					a.log.Warn("tray: " + err.Error())
				}
			}()
		}
	}
}
