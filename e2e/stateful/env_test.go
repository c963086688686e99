package stateful

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/daemon/daemontest"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/internal/clock"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/runner"
	"github.com/tend-agent/tend/sandbox"
	"github.com/tend-agent/tend/watchers"
)

// tb is what the world needs from *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
	Cleanup(func())
}

// staticKeys is a key store without keys (the stand-in is Ollama).
type staticKeys struct{}

func (staticKeys) Get(name string) (string, error) {
	return "", fmt.Errorf("key %s: %w", name, dispatch.ErrKeyNotFound)
}
func (staticKeys) Set(string, string) error { return errors.New("read-only test key store") }
func (staticKeys) Delete(string) error      { return errors.New("read-only test key store") }

// evKind says who changed a path in the timeline.
type evKind int

const (
	evUser   evKind = iota // the test, as the person using the folder
	evTend                 // tend itself (an undo)
	evForget               // `tend resume --forget`: every change so far dismissed
)

// event is one entry of the test's timeline. content "" means the path
// does not exist after the event.
type event struct {
	at      time.Time
	kind    evKind
	path    string
	content string
	op      int // index into world.ops
}

// world is one daemon on one TEND_HOME watching one folder, the stand-in
// model, and the test's own record of what happened.
type world struct {
	outer   *testing.T
	t       tb
	cancels []context.CancelFunc
	home    home.Home
	dir     string // the watched folder
	trash   string
	fc      *clock.Fake // nil on the wall clock
	clk     clock.Clock
	m       *model
	c       *api.Client
	stop    func()
	name    string

	modes   []mode              // the model modes the test may pick
	def     watchers.Definition // the test's model of the definition
	ops     []string            // what the test did, for failure messages
	events  []event
	version int // content counter: every write has a new size
}

// newWorld starts a daemon on the fake clock with one fast watcher
// (settle 0, cooldown 5 s) on an empty folder.
func newWorld(outer *testing.T, t tb) *world { return newWorldClock(outer, t, true) }

// newWorldClock is newWorld on the fake clock (fake) or the wall clock.
func newWorldClock(outer *testing.T, t tb, fake bool) *world {
	t.Helper()
	base, err := os.MkdirTemp("", "tend-sf-") // unix socket paths are short
	if err != nil {
		t.Fatalf("temp dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	w := &world{
		outer: outer, t: t,
		home:  home.Home{Dir: filepath.Join(base, "home")},
		dir:   filepath.Join(base, "folder"),
		trash: filepath.Join(base, "Trash"),
		name:  "sf",
	}
	w.clk = clock.Real{}
	if fake {
		w.fc = clock.NewFake(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
		w.clk = w.fc
	}
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		t.Fatalf("folder: %v", err)
	}
	t.Cleanup(func() {
		for _, c := range w.cancels {
			c()
		}
	})
	w.m = newModel(outer)
	t.Cleanup(w.m.close)
	w.start()
	t.Cleanup(func() { w.stop() })
	def := watchers.Definition{
		Name: w.name, Path: w.dir, Instructions: "Sort every new file into the folder Sorted/.",
		Enabled: true, Recursive: true, Responsiveness: "fast", SettleSeconds: 0, MaxIterations: 5,
		Provider: watchers.Provider{Kind: "ollama", Model: "qwen3:8b", BaseURL: w.m.URL()},
		Guards:   watchers.Guards{CooldownSeconds: 5},
	}
	v, err := w.c.Add(w.cx(), api.AddRequest{Definition: def})
	if err != nil {
		t.Fatalf("adding the watcher: %v", err)
	}
	w.def = v.Definition
	w.waitStable("adding the watcher")
	return w
}

func (w *world) start() {
	log := slog.New(slog.DiscardHandler)
	if testing.Verbose() && os.Getenv("TEND_E2E_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	r := runner.New(runner.Config{Home: w.home, Trash: sandbox.FreedesktopTrash{Dir: w.trash}, Keys: staticKeys{}, Log: log, Clock: w.clk})
	_, w.stop = daemontest.Start(w.outer, daemon.Config{Home: w.home, Clock: w.clk, Runner: r, Log: log})
	w.c = api.NewClient(w.home.Socket())
}

func (m *model) close() {
	m.release()
	m.srv.Close()
}

// apiLimit bounds every call to the daemon: one that hangs is a broken
// promise (the daemon answers), not a hung test.
const apiLimit = 15 * time.Second

// cx is the context of one call to the daemon.
func (w *world) cx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), apiLimit)
	w.cancels = append(w.cancels, cancel)
	return ctx
}

// op notes what the test is about to do and returns its index.
func (w *world) op(format string, args ...any) int {
	w.ops = append(w.ops, fmt.Sprintf("%s "+format, append([]any{time.Now().Format("15:04:05.000")}, args...)...))
	return len(w.ops) - 1
}

func (w *world) history() string {
	var b strings.Builder
	for i, o := range w.ops {
		fmt.Fprintf(&b, "\n  %3d %s", i, o)
	}
	return b.String()
}

func (w *world) fatalf(format string, args ...any) {
	w.t.Helper()
	w.t.Fatalf(format+"\nwhat the test did:%s", append(args, w.history())...)
}

// --- the folder ---------------------------------------------------------

// Paths the test writes; the folders they live in are never files.
var (
	plainFiles = []string{"a.txt", "b.txt", "c.txt", "d.txt", "sub/e.txt", "sub/f.txt", "deep/er/g.txt"}
	dirs       = map[string]bool{"sub": true, "deep": true, "deep/er": true, "b": true, "Sorted": true}
)

func burstFile(i int) string { return fmt.Sprintf("b/%02d.txt", i) }

func isDir(p string) bool { return dirs[p] }

// known reports whether p is a file the test or the model may create.
func known(p string) bool {
	if strings.HasPrefix(p, "Sorted/") || slices.Contains(plainFiles, p) {
		return true
	}
	var n int
	_, err := fmt.Sscanf(p, "b/%02d.txt", &n)
	return err == nil && burstFile(n) == p
}

func (w *world) abs(p string) string { return filepath.Join(w.dir, filepath.FromSlash(p)) }

// files lists the files now in the folder.
func (w *world) files() []string {
	var out []string
	filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(w.dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

func (w *world) read(p string) string {
	b, err := os.ReadFile(w.abs(p))
	if err != nil {
		return ""
	}
	return string(b)
}

func (w *world) exists(p string) bool {
	_, err := os.Lstat(w.abs(p))
	return err == nil
}

// write gives p new content, each version longer than the last so a
// metadata fingerprint always sees it change.
func (w *world) write(op int, p string) {
	w.version++
	content := fmt.Sprintf("%s v%d %s\n", p, w.version, strings.Repeat("x", w.version))
	if err := os.MkdirAll(filepath.Dir(w.abs(p)), 0o755); err != nil {
		w.fatalf("mkdir for %s: %v", p, err)
	}
	if err := os.WriteFile(w.abs(p), []byte(content), 0o644); err != nil {
		w.fatalf("writing %s: %v", p, err)
	}
	w.events = append(w.events, event{at: time.Now(), kind: evUser, path: p, content: content, op: op})
}

func (w *world) remove(op int, p string) {
	if err := os.Remove(w.abs(p)); err != nil {
		w.fatalf("removing %s: %v", p, err)
	}
	w.events = append(w.events, event{at: time.Now(), kind: evUser, path: p, op: op})
}

func (w *world) rename(op int, from, to string) {
	content := w.read(from)
	if err := os.MkdirAll(filepath.Dir(w.abs(to)), 0o755); err != nil {
		w.fatalf("mkdir for %s: %v", to, err)
	}
	if err := os.Rename(w.abs(from), w.abs(to)); err != nil {
		w.fatalf("renaming %s to %s: %v", from, to, err)
	}
	now := time.Now()
	w.events = append(w.events, event{at: now, kind: evUser, path: from, op: op},
		event{at: now, kind: evUser, path: to, content: content, op: op})
}

// --- the daemon ---------------------------------------------------------

func (w *world) state() (watchers.State, error) {
	v, err := w.c.Get(w.cx(), w.name)
	return v.State, err
}

// stable reports whether the watcher waits for something the test
// controls (the fake clock, a held model answer, the person) rather than
// being in the middle of something. Files must not change between the
// moment a pass takes its change list and the moment the model gets it,
// or the test could not tell what the pass was shown.
func (w *world) stable(st watchers.State) bool {
	switch st.Phase {
	case watchers.PhaseIdle, watchers.PhasePaused, watchers.PhaseExhausted, watchers.PhaseError:
		return true
	case watchers.PhaseDebouncing, watchers.PhaseSettling:
		return w.fc != nil && w.fc.Pending() > 0
	case watchers.PhaseProcessing:
		return w.m.proxy.inflight.Load() > 0 // a held or hanging answer
	}
	return false
}

// timers is how many fake-clock timers wait (0 on the wall clock).
func (w *world) timers() int {
	if w.fc == nil {
		return 0
	}
	return w.fc.Pending()
}

// waitStable waits until the watcher is stable in three looks in a row.
func (w *world) waitStable(after string) watchers.State {
	w.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var st watchers.State
	for ok := 0; ok < 3; {
		var err error
		st, err = w.state()
		if err != nil {
			w.fatalf("the daemon does not answer after %s: %v", after, err)
		}
		if w.stable(st) {
			ok++
		} else {
			ok = 0
		}
		if time.Now().After(deadline) {
			w.fatalf("the watcher did not come to rest within 15 s after %s: phase %s (%s), %d timer(s) pending, %d model request(s) in flight",
				after, st.Phase, st.Reason, w.timers(), w.m.proxy.inflight.Load())
		}
		time.Sleep(2 * time.Millisecond)
	}
	return st
}

// settle brings the world to the state the invariants are checked in:
// the model healthy, the watcher resumed and quiet. A held or hanging
// answer is ended the way a person would: pause, then resume.
func (w *world) settle() watchers.State {
	w.t.Helper()
	w.m.setMode(modeQuiet)
	w.m.release()
	deadline := time.Now().Add(30 * time.Second)
	quietSince := time.Time{}
	for {
		if time.Now().After(deadline) {
			st, _ := w.state()
			w.fatalf("the watcher did not become quiet within 30 s with a healthy model: phase %s (%s), %d timer(s) pending, %d model request(s) in flight",
				st.Phase, st.Reason, w.fc.Pending(), w.m.proxy.inflight.Load())
		}
		st := w.waitStable("settling")
		switch st.Phase {
		case watchers.PhaseIdle:
			if w.fc.Pending() > 0 {
				w.fc.Advance(time.Second)
				quietSince = time.Time{}
				continue
			}
			// Quiet means it stays idle with nothing due while late kernel
			// events come in and the clock moves on.
			if quietSince.IsZero() {
				quietSince = time.Now()
			}
			if time.Since(quietSince) > 300*time.Millisecond {
				return st
			}
			w.fc.Advance(100 * time.Millisecond)
			time.Sleep(5 * time.Millisecond)
			continue
		case watchers.PhasePaused, watchers.PhaseError, watchers.PhaseExhausted:
			// --reset: a watcher paused after reaching maxFires resumes only so.
			w.resume(w.op("settle: resume --reset (%s)", st.Reason), true, false)
		case watchers.PhaseProcessing: // an answer hangs
			w.pause(w.op("settle: pause a hanging run"))
		case watchers.PhaseDebouncing, watchers.PhaseSettling:
			w.fc.Advance(time.Second)
		}
		quietSince = time.Time{}
	}
}

func (w *world) pause(op int) {
	if err := w.c.Pause(w.cx(), w.name); err != nil {
		w.ops[op] += " -> " + err.Error()
		return
	}
	w.def.Enabled = false
}

func (w *world) resume(op int, reset, forget bool) {
	at := time.Now()
	if err := w.c.Resume(w.cx(), w.name, api.ResumeRequest{Reset: reset, Forget: forget}); err != nil {
		w.ops[op] += " -> " + err.Error()
		return
	}
	w.def.Enabled = true
	if forget {
		w.events = append(w.events, event{at: at, kind: evForget, op: op})
	}
}

// runs returns the watcher's runs, oldest first.
func (w *world) runs() []runner.RunView {
	w.t.Helper()
	raw, err := w.c.History(w.cx(), w.name)
	if err != nil {
		w.fatalf("history: %v", err)
	}
	var runs []runner.RunView
	if err := json.Unmarshal(raw, &runs); err != nil {
		w.fatalf("history: %v", err)
	}
	for i, j := 0, len(runs)-1; i < j; i, j = i+1, j-1 {
		runs[i], runs[j] = runs[j], runs[i]
	}
	return runs
}
