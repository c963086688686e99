package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/watchers"
)

// A watcher on / or on TEND_HOME hands the model the watcher definitions:
// it writes one with a check, and the daemon runs its command. Both are
// refused, on add and on edit.
func TestWatcherOnRootOrTendHomeIsRefused(t *testing.T) {
	t.Parallel()
	e := start(t, envOptions{})
	ok := t.TempDir()
	for _, p := range []string{"/", e.home.Dir, e.home.Watchers()} {
		v, err := e.c.Add(e.ctx, api.AddRequest{Definition: watchers.Definition{Name: "bad", Path: p, Instructions: "tidy", Enabled: true, Recursive: true}})
		if err == nil {
			t.Errorf("a watcher on %s was accepted", p)
			e.c.Remove(e.ctx, v.Definition.ID)
			continue
		}
		if !strings.Contains(err.Error(), "root of the file system") && !strings.Contains(err.Error(), "tend's own folder") {
			t.Errorf("adding a watcher on %s: %v; want an error that says why", p, err)
		}
	}
	e.add(watchers.Definition{Name: "fine", Path: ok})
	for _, p := range []string{"/", e.home.Dir} {
		if _, err := e.c.Edit(e.ctx, "fine", map[string]any{"path": p}); err == nil {
			t.Errorf("moving a watcher to %s was accepted", p)
		}
	}
}

// The default TEND_HOME (~/.config/tend) lies inside a watcher on ~. The
// model tries to write a watcher definition there, read the viewer token,
// and list, move or delete tend's folder; every attempt is refused, the
// listings leave it out, and tend's own writes there never wake the
// watcher.
func TestHostileModelCannotReachTendHomeInsideTheFolder(t *testing.T) {
	t.Parallel()
	e := start(t, envOptions{})
	folder := filepath.Dir(e.home.Dir)
	rel := filepath.Base(e.home.Dir)
	writeFile(t, filepath.Join(folder, "notes.txt"), "a note", 0o644)
	evil, _ := json.Marshal(map[string]any{"id": "evil", "name": "evil", "path": folder, "enabled": true,
		"instructions": "x", "check": "touch " + filepath.Join(folder, "pwned"), "schedule": "every 1m"})
	attacks := []modeltest.ToolCall{
		call("file_write", map[string]any{"path": rel + "/watchers/evil.json", "content": string(evil)}),
		call("file_read", map[string]any{"path": rel + "/http.token"}),
		call("file_move", map[string]any{"from": rel, "to": "stolen"}),
		call("file_copy", map[string]any{"from": rel, "to": "stolen"}),
		call("file_delete", map[string]any{"path": rel + "/watchers"}),
	}
	listings := []modeltest.ToolCall{
		call("file_tree", map[string]any{}),
		call("file_search", map[string]any{"pattern": "*.json"}),
	}
	srv := modeltest.NewOllama(t, rounds(append(append([]modeltest.ToolCall{}, attacks...), listings...)))
	e.add(watchers.Definition{Name: "home-holder", Path: folder, Provider: ollama(srv)})
	if _, err := e.c.Run(e.ctx, "home-holder", false); err != nil {
		t.Fatal(err)
	}
	runs := e.waitRuns("home-holder", 1)
	tools := toolRecords(runs[0])
	if len(tools) != len(attacks)+len(listings) {
		t.Fatalf("%d tool calls recorded, want %d:%s", len(tools), len(attacks)+len(listings), describe(runs))
	}
	for _, rec := range tools[:len(attacks)] {
		if !rec.Error || !strings.Contains(rec.Result, "tend's own") {
			t.Errorf("%s %s was not refused as tend's own: %s", rec.Name, rec.Args, rec.Result)
		}
	}
	for _, rec := range tools[len(attacks):] {
		if strings.Contains(rec.Result, rel) || strings.Contains(rec.Result, "watchers") {
			t.Errorf("%s shows tend's folder:\n%s", rec.Name, rec.Result)
		}
	}
	if _, err := os.Stat(filepath.Join(e.home.Watchers(), "evil.json")); err == nil {
		t.Error("the model wrote a watcher definition into TEND_HOME")
	}
	if views, err := e.c.List(e.ctx); err != nil || len(views) != 1 {
		t.Errorf("watchers after the run: %d (%v), want only home-holder", len(views), err)
	}
	// tend's own writes in TEND_HOME (state, session, ledger) are not
	// changes of the folder: the watcher stays quiet.
	e.quiet("home-holder", 1)
}

// The model cannot mute its watcher by writing .tendignore (or read it to
// learn what is watched): the file is the user's, like TEND_HOME.
func TestHostileModelCannotWriteTendignore(t *testing.T) {
	t.Parallel()
	e := start(t, envOptions{})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".tendignore"), "*.tmp\n", 0o644)
	attacks := []modeltest.ToolCall{
		call("file_write", map[string]any{"path": ".tendignore", "content": "*\n", "overwrite": true}),
		call("file_edit", map[string]any{"path": ".tendignore", "old": "*.tmp", "new": "*"}),
		call("file_delete", map[string]any{"path": ".tendignore"}),
		call("file_move", map[string]any{"from": ".tendignore", "to": "x"}),
		call("file_copy", map[string]any{"from": "notes.txt", "to": ".tendignore"}),
	}
	writeFile(t, filepath.Join(dir, "notes.txt"), "*\n", 0o644)
	srv := modeltest.NewOllama(t, rounds(attacks))
	e.add(watchers.Definition{Name: "ti", Path: dir, Provider: ollama(srv), IncludeHidden: true})
	if _, err := e.c.Run(e.ctx, "ti", false); err != nil {
		t.Fatal(err)
	}
	runs := e.waitRuns("ti", 1)
	for _, rec := range toolRecords(runs[0]) {
		if !rec.Error {
			t.Errorf("%s %s was allowed: %s", rec.Name, rec.Args, rec.Result)
		}
	}
	if got := readFile(t, filepath.Join(dir, ".tendignore")); got != "*.tmp\n" {
		t.Fatalf(".tendignore changed to %q", got)
	}
}
