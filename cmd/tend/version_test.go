package main

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

func TestStampFromBuildInfo(t *testing.T) {
	rev := "0123456789abcdef0123456789abcdef01234567"
	bi := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "github.com/tend-agent/tend", Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}}
	s := stamp("1.2.3", bi, true)
	if s.Version != "1.2.3" || s.Commit != rev || !s.Modified || s.Go != "go1.99" {
		t.Fatalf("stamp = %+v", s)
	}
	if got := s.String(); !strings.HasPrefix(got, "tend 1.2.3 (commit 0123456789ab, with uncommitted changes) go1.99 ") {
		t.Fatalf("line = %q", got)
	}
	bi.Settings[2].Value = "false"
	if got := stamp("1.2.3", bi, true).String(); !strings.HasPrefix(got, "tend 1.2.3 (commit 0123456789ab) go1.99 ") {
		t.Fatalf("clean line = %q", got)
	}
	// go install …@v0.4.0 sets no -X but records the module version.
	bi.Main.Version = "v0.4.0"
	if got := stamp(defaultVersion, bi, true).Version; got != "v0.4.0" {
		t.Fatalf("installed version = %q", got)
	}
	if got := stamp(defaultVersion, nil, false).String(); !strings.Contains(got, "commit unknown") {
		t.Fatalf("no build info: %q", got)
	}
}

// The -X fallback of scripts/build.sh (linked worktrees) is used only when
// the toolchain recorded no revision.
func TestStampFallbackFromLinker(t *testing.T) {
	defer func(c, m string) { commit, modified = c, m }(commit, modified)
	commit, modified = "fedcba9876543210fedcba9876543210fedcba98", "true"
	s := stamp("1.0.0", &debug.BuildInfo{GoVersion: "go1.99"}, true)
	if s.Commit != commit || !s.Modified {
		t.Fatalf("fallback stamp = %+v", s)
	}
	s = stamp("1.0.0", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "aaaa"}, {Key: "vcs.modified", Value: "false"}}}, true)
	if s.Commit != "aaaa" || s.Modified {
		t.Fatalf("build info must win over the fallback: %+v", s)
	}
}

func TestVersionCommandAndFlag(t *testing.T) {
	want := currentStamp().String() + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		root := newRootCommand()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if out.String() != want || !strings.HasPrefix(want, "tend "+version+" (") {
			t.Fatalf("%v printed %q, want %q", args, out.String(), want)
		}
	}
}
