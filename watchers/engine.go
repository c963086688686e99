package watchers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tend-agent/tend/fingerprint"
	"github.com/tend-agent/tend/internal/clock"
	"github.com/tend-agent/tend/watchers/events"
)

// maxDirty bounds the paths remembered between two dispatches; past it
// the engine forgets them and rebuilds the fingerprint in full, which
// finds the same changes.
const maxDirty = 10000

// EngineConfig is what one watcher's engine needs from the daemon.
type EngineConfig struct {
	Def       *Definition
	Exclude   []string // relative subtrees owned by nested watchers
	StateDir  string
	Clock     clock.Clock
	Log       *slog.Logger
	Runner    Runner
	Slots     chan struct{} // shared limit of concurrent runs; nil = none
	NewSource func(context.Context, events.Options) (events.Source, error)
	Publish   func(State)
	NewRunID  func() string
	// Hooks for the issue-5 triggers (schedule, checks, tails) and path
	// filters; nil when the watcher has none.
	Triggers *Triggers
	// Recover, when set, settles the watcher's runs that a crash
	// interrupted, at start-up before the baseline is compared. It hands
	// the paths each such run touched to fold, which takes them into the
	// baseline (and saves it) so they are not dispatched again as news.
	Recover func(def *Definition, fold func(paths []string) error)
}

type timerKind int

const (
	timerNone timerKind = iota
	timerDebounce
	timerSettle
	timerCooldown
	timerRetry
)

// Engine runs one watcher: it owns the watcher's fingerprint, its event
// source and its phase. All fields are touched only by the Run goroutine;
// other goroutines talk to it through cmds.
type Engine struct {
	cfg   EngineConfig
	def   *Definition
	files StateFiles
	st    State
	log   *slog.Logger

	baseline *fingerprint.Tree
	live     *fingerprint.Tree
	dirty    map[string]struct{}
	lastSeen map[string]time.Time // last event per path, to hold back files still being written
	rescan   bool
	rootGone bool

	deb       Debouncer
	timer     clock.Timer
	timerKind timerKind
	src       events.Source

	treeW   *bgWriter
	stateW  *bgWriter
	cmds    chan func()
	runDone chan passDone
	run     *activeRun
	queued  map[string]pendingRun // triggers held back by a run or a guard, one per kind
	ctx     context.Context       // the engine's own, for what commands start (not a request's)
}

// NewEngine prepares an engine; Run starts it.
func NewEngine(cfg EngineConfig) *Engine {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.NewSource == nil {
		cfg.NewSource = events.New
	}
	w, mw := cfg.Def.Tier()
	files := StateFiles{Dir: cfg.StateDir, ID: cfg.Def.ID}
	log := cfg.Log.With("watcher", cfg.Def.Name)
	return &Engine{
		cfg:      cfg,
		def:      cfg.Def,
		files:    files,
		log:      log,
		treeW:    &bgWriter{what: "baseline", log: log},
		stateW:   &bgWriter{what: "state", log: log},
		dirty:    map[string]struct{}{},
		lastSeen: map[string]time.Time{},
		queued:   map[string]pendingRun{},
		deb:      Debouncer{Window: w, MaxWait: mw},
		cmds:     make(chan func()),
		runDone:  make(chan passDone, 1),
	}
}

func (e *Engine) fpOptions() fingerprint.Options {
	return fingerprint.Options{IncludeHidden: e.def.IncludeHidden, Ignore: e.def.Ignore, Exclude: e.cfg.Exclude, NonRecursive: !e.def.Recursive}
}

// Run drives the watcher until ctx ends.
func (e *Engine) Run(ctx context.Context) {
	st, err := e.files.Load()
	if err != nil {
		e.log.Warn("starting with fresh runtime state", "err", err)
	}
	e.st = st
	e.st.ID = e.def.ID
	e.st.Reason = ""
	e.ctx = ctx
	defer e.shutdown()
	if !e.def.Enabled {
		// Paused: no watching, but the baseline is kept (and loaded, for
		// undo and manual runs), so what changes meanwhile stays pending.
		e.baseline = e.loadBaseline()
		e.setPhase(PhasePaused, pausedReason(e.st.PendingCount))
		e.loop(ctx)
		return
	}
	e.safely(func() { e.start(ctx, false) })
	e.loop(ctx)
}

func pausedReason(pending int) string {
	if pending > 0 {
		return fmt.Sprintf("paused by the user; %d change(s) pending", pending)
	}
	return "paused by the user"
}

// safely runs one step of the engine. A panic puts this watcher in error
// with the panic's message (the stack goes to the log); the daemon and
// the other watchers go on.
func (e *Engine) safely(f func()) {
	defer func() {
		if v := recover(); v != nil {
			e.log.Error("panic in watcher", "panic", v, "stack", string(debug.Stack()))
			if e.run != nil {
				e.run.cancel()
			}
			e.stopTimer()
			e.setPhase(PhaseError, fmt.Sprintf("internal error: %v (see the daemon log; `tend resume %s` to retry)", v, e.def.Name))
		}
	}()
	f()
}

// start opens the event source and takes or checks the baseline. With
// fresh set (a re-enabled watcher) the old baseline is dropped, so what
// changed while it was off is not replayed as new work.
func (e *Engine) start(ctx context.Context, fresh bool) {
	e.setPhase(PhaseStarting, "")
	if err := RootIsLink(e.def.Path); err != nil {
		e.fail(err)
		e.arm(timerRetry, 5*time.Second)
		return
	}
	if err := e.openSource(ctx); err != nil {
		e.fail(err)
		e.arm(timerRetry, 5*time.Second)
		return
	}
	var old *fingerprint.Tree
	if !fresh {
		old = e.loadBaseline()
	}
	if e.cfg.Recover != nil {
		e.cfg.Recover(e.def, func(paths []string) error { return e.foldRecovered(&old, paths) })
	}
	tree, err := fingerprint.Build(ctx, e.def.Path, e.fpOptions())
	if err != nil {
		e.fail(fmt.Errorf("fingerprinting %s: %w", e.def.Path, err))
		e.arm(timerRetry, 5*time.Second)
		return
	}
	e.live = tree
	e.noteSkipped(tree)
	if old == nil {
		e.baseline = tree
		// A first baseline is on disk before the watcher says it is
		// watching: a daemon killed right after still finds, when it
		// starts again, what changed while it was down.
		e.saveBaseline()
		e.treeW.wait()
		e.setPhase(PhaseIdle, "")
		e.cfg.Triggers.armNext(e)
		return
	}
	e.baseline = old
	e.rebase()
	ch := fingerprint.Diff(e.baseline, e.live)
	e.setPhase(PhaseIdle, "")
	kept := e.dismissFiltered(allPaths(ch))
	e.notePending()
	if len(kept) > 0 {
		e.log.Info("changes pending or made while the watcher was not running", "count", len(kept))
		e.dispatch("startup", restrict(ch, kept))
	}
	e.cfg.Triggers.armNext(e)
}

// foldRecovered takes the paths an interrupted run touched into the
// baseline *old and saves it before returning: the run's changes are its
// own doing, not news. Without a baseline there is nothing to fold: the
// first one is taken from the folder as it is.
func (e *Engine) foldRecovered(old **fingerprint.Tree, paths []string) error {
	if *old == nil {
		return nil
	}
	t, err := (*old).UpdatePaths(paths)
	if err != nil {
		return err
	}
	e.treeW.wait() // no older write may land after this one
	if err := t.Save(e.files.Tree()); err != nil {
		return err
	}
	*old = t
	return nil
}

func (e *Engine) openSource(ctx context.Context) error {
	if e.src != nil {
		e.src.Close()
		e.src = nil
	}
	root := e.def.Path
	opts := e.fpOptions()
	probe := fingerprint.NewMatcher(root, opts)
	src, err := e.cfg.NewSource(ctx, events.Options{
		Root:      root,
		Recursive: e.def.Recursive,
		Skip:      probe.Ignored,
		ResumeID:  e.st.EventID,
		Logger:    e.log,
	})
	if err != nil {
		return fmt.Errorf("watching %s: %w", root, err)
	}
	e.src = src
	e.st.WatchMode, e.st.WatchReason = src.Mode(), src.Reason()
	return nil
}

func (e *Engine) loadBaseline() *fingerprint.Tree {
	t, err := fingerprint.Load(e.files.Tree())
	if err != nil {
		return nil
	}
	// A baseline taken under other options (ignore list, hidden,
	// recursive, nested watchers) is kept: Diff leaves out what either
	// set of rules ignores, and what changed meanwhile is still news.
	if t.Root() != e.def.Path {
		return nil
	}
	return t
}

func (e *Engine) saveBaseline() {
	if e.baseline == nil {
		return
	}
	t, path := e.baseline, e.files.Tree()
	e.treeW.put(func() error { return t.Save(path) }) // trees are immutable
	e.st.BaselineRoot = fmt.Sprintf("%016x", e.baseline.RootHash())
	e.st.Files, e.st.Dirs = e.baseline.Counts()
}

func (e *Engine) noteSkipped(t *fingerprint.Tree) {
	e.st.Skipped = e.st.Skipped[:0]
	for _, s := range t.Skipped() {
		e.st.Skipped = append(e.st.Skipped, s.Path+": "+s.Err)
	}
}

func (e *Engine) loop(ctx context.Context) {
	for {
		var notices <-chan events.Notice
		if e.src != nil {
			notices = e.src.Notices()
		}
		var tc <-chan time.Time
		if e.timer != nil {
			tc = e.timer.C()
		}
		select {
		case <-ctx.Done():
			return
		case n, ok := <-notices:
			if !ok {
				e.src = nil
				continue
			}
			e.safely(func() { e.onNotice(n) })
		case <-tc:
			k := e.timerKind
			e.timer, e.timerKind = nil, timerNone
			e.safely(func() { e.onTimer(ctx, k) })
		case f := <-e.cmds:
			e.safely(f)
		case d := <-e.runDone:
			e.safely(func() { e.onPassDone(d) })
		case t := <-e.cfg.Triggers.channel():
			e.safely(func() { e.onTrigger(t) })
		}
	}
}

func (e *Engine) shutdown() {
	if e.run != nil {
		e.run.cancel()
		if e.run.passActive {
			<-e.runDone
		}
		// Fold in what the run did, so a restart does not take tend's own
		// changes for new work.
		if err := e.refresh(context.Background()); err != nil {
			e.log.Warn("refreshing before stop", "err", err)
		}
		e.finishRun("stopped", "the watcher was stopped or restarted during the run", false)
	}
	if e.src != nil {
		e.st.EventID = e.src.LastEventID()
		e.src.Close()
	}
	e.stopTimer()
	e.cfg.Triggers.Close()
	e.save()
	e.treeW.wait()
	e.stateW.wait()
}

func (e *Engine) onNotice(n events.Notice) {
	if n.Err != nil {
		if events.RootGone(n.Err) {
			e.rootGone = true
			e.fail(fmt.Errorf("folder %s is missing or unreadable: %v (tend resumes when it is back)", e.def.Path, n.Err))
			return
		}
		e.log.Warn("watch problem", "err", n.Err)
	}
	if e.rulesFileChanged(n.Paths) {
		e.reloadRules()
	}
	if n.Rescan {
		e.rescan = true
		e.dirty = map[string]struct{}{}
		if e.rootGone {
			e.rootGone = false
			e.setPhase(PhaseIdle, "")
		}
	}
	now := e.cfg.Clock.Now()
	for _, p := range n.Paths {
		rel, ok := relPath(e.def.Path, p)
		if !ok {
			continue
		}
		if len(e.lastSeen) < maxDirty {
			e.lastSeen[rel] = now
		}
		if e.rescan {
			continue
		}
		e.dirty[rel] = struct{}{}
		if len(e.dirty) > maxDirty {
			e.rescan = true
			e.dirty = map[string]struct{}{}
		}
	}
	e.cfg.Triggers.onPaths(e, n.Paths)
	if len(n.Paths) == 0 && !n.Rescan {
		return
	}
	switch e.st.Phase {
	case PhaseIdle, PhaseDebouncing:
		e.deb.Add(now)
		e.setPhase(PhaseDebouncing, "")
		e.arm(timerDebounce, e.deb.Due().Sub(now))
	}
}

// RootIsLink returns an error when the watched folder itself has been
// replaced by a symbolic link: tend never follows it (it could lead
// anywhere the model should not reach).
func RootIsLink(root string) error {
	if fi, err := os.Lstat(root); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("folder %s has been replaced by a symbolic link; tend does not follow it (put the folder back, or point the watcher at the real folder)", root)
	}
	return nil
}

// drainNotices takes in the notices the event source has already queued,
// without waiting for more.
func (e *Engine) drainNotices() {
	for e.src != nil {
		select {
		case n, ok := <-e.src.Notices():
			if !ok {
				e.src = nil
				return
			}
			e.onNotice(n)
		default:
			return
		}
	}
}

// relPath gives p relative to root with slashes, or false when p is not
// inside root.
func relPath(root, p string) (string, bool) {
	if p == root {
		return "", true
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// refresh folds the paths seen since the last look into the live tree.
func (e *Engine) refresh(ctx context.Context) error {
	if err := RootIsLink(e.def.Path); err != nil {
		e.arm(timerRetry, 5*time.Second) // start() checks again, and watches again once it is back
		return err
	}
	if e.src == nil {
		// No event source (a paused watcher, or one whose source ended):
		// nothing tells us what changed, so look at everything.
		e.rescan = true
	}
	if e.live == nil || e.rescan {
		t, err := fingerprint.Build(ctx, e.def.Path, e.fpOptions())
		if err != nil {
			return fmt.Errorf("fingerprinting %s: %w", e.def.Path, err)
		}
		e.live, e.rescan = t, false
		e.dirty = map[string]struct{}{}
		e.noteSkipped(t)
		if e.baseline == nil {
			// A watcher paused before it ever took a baseline: what is
			// there now is where it starts.
			e.baseline = t
		}
		e.rebase()
		return nil
	}
	paths := make([]string, 0, len(e.dirty))
	for p := range e.dirty {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	e.dirty = map[string]struct{}{}
	t, err := e.live.UpdatePaths(paths)
	if err != nil {
		// Paths we cannot update one by one are found by a full build.
		e.log.Debug("incremental update failed; rebuilding", "err", err)
		e.rescan = true
		return e.refresh(ctx)
	}
	e.live = t
	e.rebase()
	return nil
}

func (e *Engine) arm(k timerKind, d time.Duration) {
	e.stopTimer()
	if d < 0 {
		d = 0
	}
	e.timer, e.timerKind = e.cfg.Clock.NewTimer(d), k
}

func (e *Engine) stopTimer() {
	if e.timer != nil {
		e.timer.Stop()
		e.timer, e.timerKind = nil, timerNone
	}
}

func (e *Engine) setPhase(p Phase, reason string) {
	e.st.Phase, e.st.Reason = p, reason
	e.save()
}

func (e *Engine) fail(err error) {
	e.log.Error("watcher error", "err", err)
	e.setPhase(PhaseError, err.Error())
}

func (e *Engine) save() {
	e.st.UpdatedAt = e.cfg.Clock.Now().UTC()
	st, files := e.st, e.files
	st.Skipped = slices.Clone(st.Skipped) // the engine reuses these arrays
	st.FireTimes = slices.Clone(st.FireTimes)
	st.Pending = slices.Clone(st.Pending)
	st.Queued = slices.Clone(st.Queued)
	e.stateW.put(func() error { return files.Save(st) })
	if e.cfg.Publish != nil {
		e.cfg.Publish(e.st)
	}
}

// errBusy is returned by commands that need the watcher idle.
var errBusy = errors.New("a run of this watcher is in progress; wait for it or pause the watcher")
