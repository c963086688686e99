package watchers_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tend-agent/tend/fingerprint"
	"github.com/tend-agent/tend/internal/testutil"
	"github.com/tend-agent/tend/watchers"
)

// These tests hold the folder's filters (recursive, ignore, .tendignore)
// to one meaning across the start-up diff, live events and later passes.

func nonRecursive(d *watchers.Definition) { d.Recursive = false }

// fireStartup waits for the run the engine dispatches at start-up (the
// first run of this harness) and returns its first pass.
func (h *harness) fireStartup() watchers.PassRequest {
	h.t.Helper()
	testutil.WaitFor(h.t, "the start-up run", func() bool {
		if len(h.run.Passes("")) >= 1 && h.run.Finished("") >= 1 && h.phase() == watchers.PhaseIdle {
			return true
		}
		h.clk.Advance(time.Second)
		return false
	}, func() string { return fmt.Sprintf("(phase %s) %s", h.phase(), h.run.Describe()) })
	p := h.run.Passes("")[0]
	if p.Trigger != "startup" {
		h.t.Fatalf("first run after the restart has trigger %q, want startup: %s", p.Trigger, h.run.Describe())
	}
	return p
}

// A watcher without --recursive never hears of changes inside
// subfolders, live or after a restart: the start-up diff lists only what
// the live watch would have reported.
func TestEngineNonRecursiveRestart(t *testing.T) {
	t.Parallel()
	root, state := t.TempDir(), t.TempDir()
	testutil.Write(t, root, "top.txt", "v1")
	testutil.Write(t, root, "sub/inner.txt", "v1")
	h := startEngineIn(t, root, state, nonRecursive)
	if st := h.state(); st.Files != 1 || st.Dirs != 1 {
		t.Errorf("non-recursive baseline counts %d files, %d dirs; want 1, 1 (top.txt and sub)", st.Files, st.Dirs)
	}
	h.stop()

	testutil.Write(t, root, "sub/inner.txt", "version two")
	testutil.Write(t, root, "sub/new.txt", "n")
	testutil.Write(t, root, "sub/deeper/x.txt", "x")
	testutil.Write(t, root, "top.txt", "version two")
	testutil.Write(t, root, "fresh/y.txt", "y")

	h2 := startEngineIn(t, root, state, nonRecursive)
	p := h2.fireStartup()
	want := fingerprint.Changes{Added: []string{"fresh"}, Modified: []string{"top.txt"}}
	if !testutil.Equal(p.Changes, want) {
		t.Fatalf("start-up run of a non-recursive watcher lists %+v\nwant %+v", testutil.Norm(p.Changes), want)
	}
	// Live, a change in a subfolder is not news either.
	testutil.Write(t, root, "sub/live.txt", "l")
	testutil.Write(t, root, "fresh/z.txt", "z")
	h2.quiet()
	if n := len(h2.run.Passes("")); n != 2 {
		t.Errorf("%d passes after the restart, want the start-up run and the barrier: %s", n, h2.run.Describe())
	}
}

// waitRulesTaken waits until the engine has folded a rule change into its
// baseline (which then counts files files), moving the clock so that the
// wake-up the change caused comes to its end.
func (h *harness) waitRulesTaken(files int) {
	h.t.Helper()
	testutil.WaitFor(h.t, "the watcher to take up the new .tendignore", func() bool {
		if h.phase() == watchers.PhaseIdle && h.state().Files == files {
			return true
		}
		h.clk.Advance(time.Second)
		return false
	}, func() string {
		return fmt.Sprintf("(%d sources opened, phase %s, baseline %d files)", h.sources(), h.phase(), h.state().Files)
	})
}

// A .tendignore written while the watcher runs applies at once: the files
// it ignores do not wake the watcher, and neither they nor the files they
// had before reach the model, not even as removed.
func TestEngineTendignoreWrittenLive(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testutil.Write(t, root, "a.txt", "a")
	testutil.Write(t, root, "old.log", "o")
	testutil.Write(t, root, "build/out.bin", "b")
	h := startEngine(t, root, nil)

	testutil.Write(t, root, fingerprint.TendIgnoreFile, "*.log\nbuild/\n")
	h.waitRulesTaken(1)
	if n := len(h.run.Passes("")); n != 0 {
		t.Fatalf("writing .tendignore dispatched a run: %s", h.run.Describe())
	}

	testutil.Write(t, root, "old.log", "longer content")
	testutil.Write(t, root, "new.log", "n")
	testutil.Write(t, root, "build/out.bin", "rebuilt")
	testutil.Write(t, root, "build/more.bin", "m")
	testutil.Write(t, root, "a.txt", "version two")
	h.waitSeen("a.txt")
	for _, rel := range []string{"old.log", "new.log", "build/out.bin", "build/more.bin"} {
		if h.tap().saw(filepath.Join(root, rel)) {
			t.Errorf("the event source reported %s, which .tendignore ignores", rel)
		}
	}
	p := h.fire()
	if want := (fingerprint.Changes{Modified: []string{"a.txt"}}); !testutil.Equal(p.Changes, want) {
		t.Fatalf("after .tendignore, the run lists %+v\nwant %+v", testutil.Norm(p.Changes), want)
	}
	h.quiet()
}

// A .tendignore written while the daemon was down: the start-up run does
// not list what it ignores now as removed.
func TestEngineTendignoreWrittenWhileDown(t *testing.T) {
	t.Parallel()
	root, state := t.TempDir(), t.TempDir()
	testutil.Write(t, root, "a.txt", "a")
	testutil.Write(t, root, "old.log", "o")
	testutil.Write(t, root, "build/out.bin", "b")
	h := startEngineIn(t, root, state, nil)
	h.stop()

	testutil.Write(t, root, fingerprint.TendIgnoreFile, "*.log\nbuild/\n")
	testutil.Write(t, root, "a.txt", "version two")
	testutil.Write(t, root, "new.log", "n")

	h2 := startEngineIn(t, root, state, nil)
	p := h2.fireStartup()
	if want := (fingerprint.Changes{Modified: []string{"a.txt"}}); !testutil.Equal(p.Changes, want) {
		t.Fatalf("start-up run lists %+v\nwant %+v", testutil.Norm(p.Changes), want)
	}
	h2.quiet()
}

// Un-ignoring a folder: what was there already is not news, but the
// folder is watched from then on.
func TestEngineTendignoreUnignoresLive(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testutil.Write(t, root, fingerprint.TendIgnoreFile, "build/\n")
	testutil.Write(t, root, "a.txt", "a")
	testutil.Write(t, root, "build/out.bin", "b")
	h := startEngine(t, root, nil)
	if st := h.state(); st.Files != 1 {
		t.Fatalf("baseline counts %d files, want 1 (build/ is ignored)", st.Files)
	}

	must(t, os.WriteFile(filepath.Join(root, fingerprint.TendIgnoreFile), []byte("*.tmp\n"), 0o644))
	h.waitRulesTaken(2)
	if n := len(h.run.Passes("")); n != 0 {
		t.Fatalf("un-ignoring build/ dispatched what was already there: %s", h.run.Describe())
	}
	testutil.Write(t, root, "build/out.bin", "rebuilt and longer")
	h.waitSeen("build/out.bin")
	p := h.fire()
	if want := (fingerprint.Changes{Modified: []string{"build/out.bin"}}); !testutil.Equal(p.Changes, want) {
		t.Fatalf("a change in the un-ignored folder gave %+v\nwant %+v", testutil.Norm(p.Changes), want)
	}
	h.quiet()
}

// Changing a watcher's rules (here its ignore list, as `tend edit` does)
// keeps what changed before the edit as news, and only that: the old
// baseline is compared under both the old and the new rules.
func TestEngineRulesEditedKeepsChanges(t *testing.T) {
	t.Parallel()
	root, state := t.TempDir(), t.TempDir()
	testutil.Write(t, root, "a.txt", "a")
	testutil.Write(t, root, "x.log", "x")
	testutil.Write(t, root, "sub/deep.txt", "d")
	testutil.Write(t, root, ".hidden", "h")
	h := startEngineIn(t, root, state, nonRecursive)
	h.stop()

	testutil.Write(t, root, "a.txt", "version two")
	testutil.Write(t, root, "x.log", "version two")
	testutil.Write(t, root, "y.log", "y")
	testutil.Write(t, root, "sub/deep.txt", "version two")
	edit := func(d *watchers.Definition) {
		d.Recursive = true
		d.IncludeHidden = true
		d.Ignore = []string{"*.log"}
	}
	h2 := startEngineIn(t, root, state, edit)
	p := h2.fireStartup()
	if want := (fingerprint.Changes{Modified: []string{"a.txt"}}); !testutil.Equal(p.Changes, want) {
		t.Fatalf("after the edit the start-up run lists %+v\nwant %+v", testutil.Norm(p.Changes), want)
	}
	testutil.Write(t, root, "sub/deep.txt", "version three")
	h2.waitSeen("sub/deep.txt")
	if p := h2.fire(); !testutil.Equal(p.Changes, fingerprint.Changes{Modified: []string{"sub/deep.txt"}}) {
		t.Fatalf("after the edit a change in a subfolder gives %+v", testutil.Norm(p.Changes))
	}
	h2.quiet()
}

// othersChanged stands for people changing the folder during a pass: the
// paths are folded in at settle time (as a run's own would be, so the test
// does not race their events) and none is explained by the run.
type othersChanged []string

func (o othersChanged) Touched() []string                               { return o }
func (o othersChanged) Unexplained(_ string, changed []string) []string { return changed }

// fireRun moves the clock until one more run has finished and the engine
// is idle, and returns that run's passes.
func (h *harness) fireRun() []watchers.PassRequest {
	h.t.Helper()
	finished, before := h.run.Finished(""), len(h.run.Passes(""))
	testutil.WaitFor(h.t, "a run", func() bool {
		if h.run.Finished("") > finished && h.phase() == watchers.PhaseIdle {
			return true
		}
		h.clk.Advance(time.Second)
		return false
	}, func() string { return fmt.Sprintf("(phase %s) %s", h.phase(), h.run.Describe()) })
	return h.run.Passes("")[before:]
}

// The include/exclude filters narrow the start-up diff, live changes and
// the follow-up passes of a run alike.
func TestEngineIncludeExcludeSameEverywhere(t *testing.T) {
	t.Parallel()
	root, state := t.TempDir(), t.TempDir()
	filters := func(d *watchers.Definition) { d.Exclude = []string{"*.tmp", "scratch"} }
	testutil.Write(t, root, "keep.txt", "k")
	h := startEngineIn(t, root, state, filters)
	h.stop()

	testutil.Write(t, root, "a.txt", "a")
	testutil.Write(t, root, "b.tmp", "b")
	testutil.Write(t, root, "scratch/x.txt", "x")
	h2 := startEngineIn(t, root, state, filters)
	if p := h2.fireStartup(); !testutil.Equal(p.Changes, fingerprint.Changes{Added: []string{"a.txt"}}) {
		t.Errorf("start-up run lists %+v, want only a.txt", testutil.Norm(p.Changes))
	}

	testutil.Write(t, root, "c.txt", "c")
	testutil.Write(t, root, "d.tmp", "d")
	testutil.Write(t, root, "scratch/y.txt", "y")
	h2.waitSeen("c.txt", "d.tmp", "scratch/y.txt")
	if ps := h2.fireRun(); len(ps) != 1 || !testutil.Equal(ps[0].Changes, fingerprint.Changes{Added: []string{"c.txt"}}) {
		t.Errorf("live run has passes %s, want one listing only c.txt", h2.run.Describe())
	}

	// During pass 1 others add e.txt and files the filters leave out:
	// pass 2 lists e.txt alone.
	h2.setPassHook(func(req watchers.PassRequest) watchers.Explainer {
		if req.Pass != 1 {
			return nil
		}
		testutil.Write(t, root, "e.txt", "e")
		testutil.Write(t, root, "f.tmp", "f")
		testutil.Write(t, root, "scratch/z.txt", "z")
		return othersChanged{"e.txt", "f.tmp", "scratch/z.txt"}
	})
	testutil.Write(t, root, "g.txt", "g")
	h2.waitSeen("g.txt")
	ps := h2.fireRun()
	if len(ps) != 2 || !testutil.Equal(ps[0].Changes, fingerprint.Changes{Added: []string{"g.txt"}}) ||
		!testutil.Equal(ps[1].Changes, fingerprint.Changes{Added: []string{"e.txt"}}) {
		t.Errorf("run with changes by others: %s; want pass 1 with g.txt and pass 2 with e.txt alone", h2.run.Describe())
	}

	// Others change only filtered-out files: no second pass.
	h2.setPassHook(func(req watchers.PassRequest) watchers.Explainer {
		if req.Pass != 1 {
			return nil
		}
		testutil.Write(t, root, "h.tmp", "h")
		testutil.Write(t, root, "scratch/w.txt", "w")
		return othersChanged{"h.tmp", "scratch/w.txt"}
	})
	testutil.Write(t, root, "i.txt", "i")
	h2.waitSeen("i.txt")
	if ps := h2.fireRun(); len(ps) != 1 {
		t.Errorf("changes only to filtered-out files gave a second pass: %s", h2.run.Describe())
	}
	// Nothing is left over: a new file is dispatched alone.
	h2.setPassHook(nil)
	testutil.Write(t, root, "zz-last.txt", "z")
	h2.waitSeen("zz-last.txt")
	if ps := h2.fireRun(); len(ps) != 1 || !testutil.Equal(ps[0].Changes, fingerprint.Changes{Added: []string{"zz-last.txt"}}) {
		t.Errorf("left-over changes: %s", h2.run.Describe())
	}
}
