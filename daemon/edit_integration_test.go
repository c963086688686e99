package daemon_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/internal/testutil"
	"github.com/tend-agent/tend/watchers"
)

// addRich adds a watcher with nested objects worth keeping: guards, a
// log tail and an OpenAI-compatible provider with its own base URL.
func addRich(h *dh, name, dir string) api.View {
	h.t.Helper()
	testutil.Write(h.t, dir, "build.log", "")
	return h.add(name, dir, func(d *watchers.Definition) {
		d.Guards = watchers.Guards{CooldownSeconds: 6, MaxFires: 7, BurstThreshold: 4}
		d.Tail = &watchers.Tail{File: "build.log", OKPattern: "PASS", FailPattern: "FAIL"}
		d.Provider = watchers.Provider{Kind: "openai", Model: "m1", BaseURL: "http://127.0.0.1:9/v1", KeyName: "local"}
	})
}

func (h *dh) edit(ref string, patch map[string]any) watchers.Definition {
	h.t.Helper()
	v, err := h.c.Edit(h.ctx, ref, patch)
	if err != nil {
		h.t.Fatalf("edit %v: %v", patch, err)
	}
	return v.Definition
}

// An edit is an RFC 7386 merge patch at every depth: objects merge, null
// removes, anything else replaces.
func TestEditIsMergePatch(t *testing.T) {
	t.Parallel()
	h := startDaemon(t)
	addRich(h, "rich", t.TempDir())

	d := h.edit("rich", map[string]any{"guards": map[string]any{"cooldownSeconds": 30}})
	if want := (watchers.Guards{CooldownSeconds: 30, MaxFires: 7, BurstThreshold: 4}); d.Guards != want {
		t.Errorf("after a cooldown edit guards are %+v, want %+v", d.Guards, want)
	}
	d = h.edit("rich", map[string]any{"tail": map[string]any{"okPattern": "OK"}})
	if d.Tail == nil || *d.Tail != (watchers.Tail{File: "build.log", OKPattern: "OK", FailPattern: "FAIL"}) {
		t.Errorf("after an okPattern edit the tail is %+v, want build.log with OK and FAIL", d.Tail)
	}
	d = h.edit("rich", map[string]any{"provider": map[string]any{"model": "m2"}})
	if want := (watchers.Provider{Kind: "openai", Model: "m2", BaseURL: "http://127.0.0.1:9/v1", KeyName: "local"}); d.Provider != want {
		t.Errorf("after a model edit the provider is %+v, want %+v", d.Provider, want)
	}
	d = h.edit("rich", map[string]any{"tail": map[string]any{"failPattern": nil}, "guards": map[string]any{"maxFires": nil}})
	if d.Tail == nil || d.Tail.FailPattern != "" || d.Tail.OKPattern != "OK" || d.Guards.MaxFires != 0 || d.Guards.CooldownSeconds != 30 {
		t.Errorf("null leaves: tail %+v guards %+v; want failPattern and maxFires gone, the rest kept", d.Tail, d.Guards)
	}
	d = h.edit("rich", map[string]any{"tail": nil})
	if d.Tail != nil {
		t.Errorf("tail: null left the tail %+v", d.Tail)
	}
	// A patch of the wrong shape is refused, and the definition stays.
	if _, err := h.c.Edit(h.ctx, "rich", map[string]any{"guards": 5}); err == nil || !strings.Contains(err.Error(), "invalid change") {
		t.Errorf("guards: 5 gave %v, want an invalid change error", err)
	}
	if v, _ := h.view("rich"); v.Definition.Guards.CooldownSeconds != 30 {
		t.Errorf("a refused edit changed the watcher: %+v", v.Definition.Guards)
	}
}

// Many edits at once of different fields, top-level and nested, all land.
func TestParallelEditsAllLand(t *testing.T) {
	t.Parallel()
	h := startDaemon(t)
	addRich(h, "busy", t.TempDir())
	patches := []map[string]any{
		{"instructions": "new instructions"},
		{"responsiveness": "patient"},
		{"settleSeconds": 3},
		{"maxIterations": 9},
		{"dryRun": true},
		{"includeHidden": true},
		{"ignore": []string{"*.tmp"}},
		{"include": []string{"**/*.md"}},
		{"exclude": []string{"secret/**"}},
		{"schedule": "every 1h"},
		{"checkTimeoutSeconds": 60},
		{"allowOverlap": true},
		{"guards": map[string]any{"cooldownSeconds": 11}},
		{"guards": map[string]any{"burstThreshold": 12}},
		{"guards": map[string]any{"burstWindowSeconds": 13}},
		{"guards": map[string]any{"maxFires": 14}},
		{"guards": map[string]any{"maxFailures": 15}},
		{"provider": map[string]any{"model": "m16"}},
		{"provider": map[string]any{"keyName": "k17"}},
		{"provider": map[string]any{"baseURL": "http://127.0.0.1:18/v1"}},
		{"tail": map[string]any{"okPattern": "ok19"}},
		{"tail": map[string]any{"failPattern": "fail20"}},
		{"tail": map[string]any{"silenceSeconds": 2100}},
		{"recursive": false},
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(patches))
	for _, p := range patches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := h.c.Edit(h.ctx, "busy", p); err != nil {
				errs <- fmt.Errorf("edit %v: %w", p, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	v, _ := h.view("busy")
	d := v.Definition
	got := fmt.Sprintf("%s|%s|%d|%d|%v|%v|%v|%v|%v|%s|%d|%v|%+v|%+v|%+v|%v",
		d.Instructions, d.Responsiveness, d.SettleSeconds, d.MaxIterations, d.DryRun, d.IncludeHidden,
		d.Ignore, d.Include, d.Exclude, d.Schedule, d.CheckTimeout, d.AllowOverlap, d.Guards, d.Provider, *d.Tail, d.Recursive)
	want := "new instructions|patient|3|9|true|true|[*.tmp]|[**/*.md]|[secret/**]|every 1h|60|true|" +
		"{CooldownSeconds:11 BurstThreshold:12 BurstWindowSeconds:13 MaxFires:14 MaxFailures:15}|" +
		"{Kind:openai Model:m16 BaseURL:http://127.0.0.1:18/v1 KeyName:k17 Vision:false}|" +
		"{File:build.log OKPattern:ok19 FailPattern:fail20 SilenceSeconds:2100}|false"
	if got != want {
		t.Errorf("after %d parallel edits:\n got %s\nwant %s", len(patches), got, want)
	}
}

// Two watchers on one folder see each other's changes: refused unless
// the new one says allowOverlap. A folder inside another stays allowed.
func TestSameFolderNeedsAllowOverlap(t *testing.T) {
	t.Parallel()
	h := startDaemon(t)
	dir := t.TempDir()
	h.add("first", dir, nil)
	_, err := h.c.Add(h.ctx, api.AddRequest{Definition: watchers.Definition{Name: "second", Instructions: "x", Enabled: true, Path: dir}})
	if err == nil || !strings.Contains(err.Error(), "already watched by first") || !strings.Contains(err.Error(), "--allow-overlap") {
		t.Fatalf("second watcher on the same folder: %v; want a refusal naming first and --allow-overlap", err)
	}
	other := t.TempDir()
	h.add("third", other, nil)
	if _, err := h.c.Edit(h.ctx, "third", map[string]any{"path": dir}); err == nil || !strings.Contains(err.Error(), "already watched by first") {
		t.Errorf("moving third onto first's folder: %v; want a refusal", err)
	}
	v := h.add("second", dir, func(d *watchers.Definition) { d.AllowOverlap = true })
	if !v.Definition.AllowOverlap {
		t.Errorf("allowOverlap was not stored: %+v", v.Definition)
	}
	testutil.Write(t, dir, "sub/x", "x")
	h.add("nested", dir+"/sub", nil)
}

// Oversized instructions are refused at add and edit, and an oversized
// request is refused before it is decoded.
func TestOversizedInstructionsRefused(t *testing.T) {
	t.Parallel()
	h := startDaemon(t)
	dir := t.TempDir()
	long := strings.Repeat("a", watchers.MaxInstructionsBytes+1)
	_, err := h.c.Add(h.ctx, api.AddRequest{Definition: watchers.Definition{Name: "long", Instructions: long, Enabled: true, Path: dir}})
	if err == nil || !strings.Contains(err.Error(), "over the limit of 64 KiB") {
		t.Errorf("add with 64 KiB + 1 of instructions: %v", err)
	}
	h.add("short", dir, nil)
	if _, err := h.c.Edit(h.ctx, "short", map[string]any{"instructions": long}); err == nil || !strings.Contains(err.Error(), "over the limit of 64 KiB") {
		t.Errorf("edit to 64 KiB + 1 of instructions: %v", err)
	}
	huge := strings.Repeat("a", 8<<20)
	if _, err := h.c.Edit(h.ctx, "short", map[string]any{"instructions": huge}); err == nil || !strings.Contains(err.Error(), "the request is over 1024 KiB") {
		t.Errorf("edit with 8 MiB of instructions: %v", err)
	}
	if v, _ := h.view("short"); v.Definition.Instructions != "keep it tidy" {
		t.Errorf("a refused edit changed the instructions")
	}
}

// Resume either does what it says or says why not.
func TestResumeRefusals(t *testing.T) {
	t.Parallel()
	h := startDaemon(t)
	if _, err := h.c.Add(h.ctx, api.AddRequest{Definition: watchers.Definition{Name: "tpl", Instructions: "x"}}); err != nil {
		t.Fatal(err)
	}
	if err := h.c.Resume(h.ctx, "tpl", api.ResumeRequest{}); err == nil || !strings.Contains(err.Error(), "tpl is a template") {
		t.Errorf("resuming a template: %v; want a refusal saying it is a template", err)
	}
	if v, _ := h.view("tpl"); v.Definition.Enabled {
		t.Errorf("a refused resume enabled the template")
	}

	dir := t.TempDir()
	h.add("once", dir, func(d *watchers.Definition) { d.Guards.MaxFires = 1 })
	h.waitPhase("once", watchers.PhaseIdle)
	testutil.Write(t, dir, "a.txt", "a")
	h.waitRun("once", 1)
	testutil.Write(t, dir, "b.txt", "b")
	h.waitPhase("once", watchers.PhaseExhausted)
	err := h.c.Resume(h.ctx, "once", api.ResumeRequest{})
	if err == nil || !strings.Contains(err.Error(), "`tend resume once --reset`") {
		t.Errorf("resuming an exhausted watcher without --reset: %v; want a refusal naming tend resume once --reset", err)
	}
	if err := h.c.Resume(h.ctx, "once", api.ResumeRequest{Reset: true}); err != nil {
		t.Fatalf("resume --reset: %v", err)
	}
	h.waitState("once", "reset", func(s watchers.State) bool { return s.FireCount == 0 && s.Phase != watchers.PhaseExhausted })
}

// A check runs on a schedule: add and edit refuse one without.
func TestCheckNeedsSchedule(t *testing.T) {
	t.Parallel()
	h := startDaemon(t)
	dir := t.TempDir()
	_, err := h.c.Add(h.ctx, api.AddRequest{Definition: watchers.Definition{Name: "c", Instructions: "x", Enabled: true, Path: dir, Check: "true"}})
	if err == nil || !strings.Contains(err.Error(), "add --schedule") {
		t.Errorf("add with a check and no schedule: %v", err)
	}
	// A template: no check runs while the test ends.
	h.add("c", "", func(d *watchers.Definition) { d.Check, d.Schedule, d.Enabled = "true", "every 1h", false })
	if _, err := h.c.Edit(h.ctx, "c", map[string]any{"schedule": nil}); err == nil || !strings.Contains(err.Error(), "add --schedule") {
		t.Errorf("removing the schedule of a check: %v", err)
	}
	h.edit("c", map[string]any{"check": nil, "schedule": nil})
}
