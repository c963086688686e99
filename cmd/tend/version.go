package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func init() { addCommand(newVersionCommand) }

// buildStamp is what a binary knows about its own build: the version set
// with -ldflags "-X main.version=…" (scripts/build.sh does), and the commit
// the Go toolchain records from git (-buildvcs).
type buildStamp struct {
	Version  string
	Commit   string // vcs.revision; empty when built outside git or with -buildvcs=false
	Time     string // vcs.time, the commit's time
	Modified bool   // vcs.modified: the tree had uncommitted changes
	Go       string
}

// commit and modified are a fallback set with -X by scripts/build.sh, for
// the builds the toolchain cannot stamp: it finds git only in a checkout's
// own .git folder, not in a linked worktree (.git is a file there).
var (
	commit   string
	modified string // "true" or "false"
)

// stamp reads the build stamp from the version variable and the build
// info (vcs.revision, vcs.time, vcs.modified), else from the -X fallback.
// A module installed with `go install …@vX.Y.Z` and no -X flag reports
// the module version instead of the default.
func stamp(version string, bi *debug.BuildInfo, ok bool) buildStamp {
	s := buildStamp{Version: version, Go: runtime.Version(), Commit: commit, Modified: modified == "true"}
	if !ok || bi == nil {
		return s
	}
	s.Go = bi.GoVersion
	if version == defaultVersion && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		s.Version = bi.Main.Version
	}
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			s.Commit = kv.Value
			s.Modified = false // vcs.modified, read next, is the truth for this commit
		case "vcs.time":
			s.Time = kv.Value
		case "vcs.modified":
			s.Modified = kv.Value == "true"
		}
	}
	return s
}

// String is the one line `tend version` and `tend --version` print.
func (s buildStamp) String() string {
	line := "tend " + s.Version
	switch {
	case s.Commit == "":
		line += " (commit unknown: built without VCS information)"
	case s.Modified:
		line += fmt.Sprintf(" (commit %s, with uncommitted changes)", short(s.Commit))
	default:
		line += fmt.Sprintf(" (commit %s)", short(s.Commit))
	}
	return line + fmt.Sprintf(" %s %s/%s", s.Go, runtime.GOOS, runtime.GOARCH)
}

func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

func currentStamp() buildStamp {
	bi, ok := debug.ReadBuildInfo()
	return stamp(version, bi, ok)
}

func newVersionCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print tend's version and the commit it was built from",
		Example: "  tend version\n  tend --version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), currentStamp())
			return nil
		},
	}
}
