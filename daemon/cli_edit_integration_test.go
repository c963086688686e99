package daemon_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/internal/testutil"
)

// Twenty `tend edit` processes at once, each setting one field (nested
// ones among them), all land: the CLI sends only its leaf and the daemon
// applies each patch to the latest definition.
func TestCLIParallelEditsAllLand(t *testing.T) {
	t.Parallel()
	c := cli{t: t, bin: buildTend(t), home: testutil.ShortTempDir(t)}
	dir := t.TempDir()
	testutil.Write(t, dir, "build.log", "")
	p := c.daemon()
	if code, out, errs := c.run("add", dir, "--name", "w", "--instructions", "x", "--tail", "build.log", "--fail-pattern", "FAIL", "--max-fires", "7",
		"--provider", "openai", "--base-url", "http://127.0.0.1:9/v1"); code != 0 {
		t.Fatalf("tend add: exit %d: %s%s", code, out, errs)
	}
	edits := [][]string{
		{"--instructions", "new"}, {"--responsiveness", "patient"}, {"--settle", "3"}, {"--max-iterations", "9"},
		{"--dry-run"}, {"--hidden"}, {"--ignore", "*.tmp"}, {"--include", "**/*.md"}, {"--exclude", "secret/**"},
		{"--schedule", "every 1h"}, {"--check-timeout", "60"}, {"--allow-overlap"},
		{"--cooldown", "11"}, {"--burst-threshold", "12"}, {"--burst-window", "13"},
		{"--model", "m16"}, {"--key", "k17"}, {"--ok-pattern", "ok19"}, {"--fail-pattern", "fail20"}, {"--silence", "35m"},
	}
	var wg sync.WaitGroup
	for _, e := range edits {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code, out, errs := c.run(append([]string{"edit", "w"}, e...)...); code != 0 {
				t.Errorf("tend edit w %s: exit %d: %s%s", strings.Join(e, " "), code, out, errs)
			}
		}()
	}
	wg.Wait()
	v, err := api.NewClient(filepath.Join(c.home, "tend.sock")).Get(context.Background(), "w")
	if err != nil {
		t.Fatal(err)
	}
	d := v.Definition
	got := fmt.Sprintf("%s|%s|%d|%d|%v|%v|%v|%v|%v|%s|%d|%v|%+v|%+v|%+v", // a nil tail prints <nil>
		d.Instructions, d.Responsiveness, d.SettleSeconds, d.MaxIterations, d.DryRun, d.IncludeHidden,
		d.Ignore, d.Include, d.Exclude, d.Schedule, d.CheckTimeout, d.AllowOverlap, d.Guards, d.Provider, d.Tail)
	want := "new|patient|3|9|true|true|[*.tmp]|[**/*.md]|[secret/**]|every 1h|60|true|" +
		"{CooldownSeconds:11 BurstThreshold:12 BurstWindowSeconds:13 MaxFires:7 MaxFailures:0}|" +
		"{Kind:openai Model:m16 BaseURL:http://127.0.0.1:9/v1 KeyName:k17 Vision:false}|" +
		"&{File:build.log OKPattern:ok19 FailPattern:fail20 SilenceSeconds:2100}"
	if got != want {
		t.Errorf("after %d parallel tend edit:\n got %s\nwant %s", len(edits), got, want)
	}
	p.stop(t)
}
