// Package daemon is tend's one long-running process: it owns every
// watcher's engine and runtime state, applies edits of the definition
// files live, and serves the local API that the CLI, the tray and the web
// viewer use.
package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/google/uuid"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/internal/clock"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/watchers"
	"github.com/tend-agent/tend/watchers/events"
)

// Runner is what the daemon needs from the model side: passes, history
// and undo.
type Runner interface {
	watchers.Runner
	Undo(ctx context.Context, def *watchers.Definition, runID string) (api.UndoResponse, error)
	History(def *watchers.Definition) (json.RawMessage, error)
}

// Config sets up a daemon.
type Config struct {
	Home      home.Home
	Clock     clock.Clock
	Log       *slog.Logger
	Runner    Runner
	NewSource func(context.Context, events.Options) (events.Source, error)
	MaxRuns   int    // concurrent runs across watchers; default 2
	HTTPAddr  string // loopback address for the browser; "" = off
	Version   string
	// Triggers builds the extra triggers of a watcher (schedules, checks,
	// tails, filters); nil = DefaultTriggers.
	Triggers func(*watchers.Definition) (*watchers.Triggers, error)
	// WebHandler serves the history viewer's pages on the HTTP listener.
	WebHandler http.Handler
}

// Daemon is a running tend daemon.
type Daemon struct {
	cfg     Config
	log     *slog.Logger
	store   *watchers.Store
	slots   chan struct{}
	events  *broker
	trim    *memTrimmer
	started time.Time

	mu       sync.Mutex // serialises reconcile and mutations
	engines  map[string]*handle
	winding  map[string]<-chan struct{} // engines told to stop, closed once stopped
	defs     []*watchers.Definition
	problems map[string]string // definition file id -> problem

	stateMu sync.Mutex
	states  map[string]watchers.State

	httpAddr      string
	viewerProblem string // why the viewer is off although asked for; under mu
	token         string
	runCtx        context.Context
}

type handle struct {
	def     *watchers.Definition
	raw     string
	exclude []string
	eng     *watchers.Engine
	cancel  context.CancelFunc
	done    chan struct{}
	// retired is set when the engine is told to stop: what it publishes
	// while winding down must not overwrite its successor's state.
	retired atomic.Bool
}

// New checks the config; Run starts the daemon.
func New(cfg Config) *Daemon {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.MaxRuns <= 0 {
		cfg.MaxRuns = 2
	}
	if cfg.Triggers == nil {
		cfg.Triggers = DefaultTriggers(cfg.Home, cfg.Clock)
	}
	return &Daemon{
		cfg:      cfg,
		log:      cfg.Log,
		store:    &watchers.Store{Dir: cfg.Home.Watchers()},
		slots:    make(chan struct{}, cfg.MaxRuns),
		events:   newBroker(),
		trim:     newMemTrimmer(),
		engines:  map[string]*handle{},
		winding:  map[string]<-chan struct{}{},
		problems: map[string]string{},
		states:   map[string]watchers.State{},
	}
}

// Run serves until ctx ends. It fails at once when another daemon holds
// the home.
func (d *Daemon) Run(ctx context.Context, ready func()) error {
	h := d.cfg.Home
	if err := h.Ensure(); err != nil {
		return err
	}
	lock, err := lockHome(h.Lock())
	if err != nil {
		return err
	}
	defer lock.Close()
	d.started = d.cfg.Clock.Now()
	d.runCtx = ctx

	os.Remove(h.Socket())
	ln, err := net.Listen("unix", h.Socket())
	if err != nil {
		return fmt.Errorf("listening on %s: %w", h.Socket(), err)
	}
	os.Chmod(h.Socket(), 0o600)
	defer os.Remove(h.Socket())
	srv := &http.Server{Handler: d.routes(false), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	if d.cfg.HTTPAddr != "" {
		hs, err := d.serveHTTP()
		var busy *viewerOffError
		switch {
		case errors.As(err, &busy):
			// The watchers do not need the viewer: run on without it, and
			// say why in the log and in `tend status`.
			d.log.Error("history viewer off; the watchers run without it", "err", err)
			d.mu.Lock()
			d.viewerProblem = err.Error()
			d.mu.Unlock()
		case err != nil:
			return err
		default:
			defer hs.Close()
		}
	}

	sw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watching %s: %w", d.store.Dir, err)
	}
	defer sw.Close()
	if err := sw.Add(d.store.Dir); err != nil {
		return fmt.Errorf("watching %s: %w", d.store.Dir, err)
	}
	d.reconcile(ctx)
	d.log.Info("tend daemon ready", "home", h.Dir, "watchers", len(d.defs))
	if ready != nil {
		ready()
	}
	for {
		select {
		case <-ctx.Done():
			d.stopAll()
			d.trim.stop()
			return nil
		case ev, ok := <-sw.Events:
			if !ok {
				return errors.New("store watcher closed")
			}
			if ev.Name == d.store.Dir {
				continue
			}
			d.reconcile(ctx)
		case err, ok := <-sw.Errors:
			if ok {
				d.log.Warn("store watch", "err", err)
				d.reconcile(ctx)
			}
		}
	}
}

func (d *Daemon) stopAll() {
	d.mu.Lock()
	for id, h := range d.engines {
		d.stopEngine(id, h)
	}
	var done []<-chan struct{}
	for _, c := range d.winding {
		done = append(done, c)
	}
	d.mu.Unlock()
	for _, c := range done {
		<-c
	}
}

func (d *Daemon) publish(def *watchers.Definition, st watchers.State) {
	d.stateMu.Lock()
	d.states[def.ID] = st
	d.stateMu.Unlock()
	d.trim.observe(def.ID, st.Phase)
	d.events.publish(api.Event{
		ID: def.ID, Name: def.Name, Status: st.Phase, Badge: st.Phase.Badge(),
		Reason: st.Reason, FireCount: st.FireCount, Pending: st.PendingCount, Time: d.cfg.Clock.Now().UTC(),
	})
}

func (d *Daemon) newRunID() string {
	return d.cfg.Clock.Now().UTC().Format("20060102T150405Z") + "-" + uuid.NewString()[:8]
}
