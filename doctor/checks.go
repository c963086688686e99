package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/watchers"
)

func checkDaemon(ctx context.Context, d Deps) ([]*watchers.Definition, Result, *api.Status) {
	r := Result{Check: "daemon"}
	var st api.Status
	err := errors.New("no way to ask the daemon")
	if d.Status != nil {
		st, err = d.Status(ctx)
	}
	if err == nil {
		r.Level = OK
		r.Summary = fmt.Sprintf("running (pid %d, version %s), %d watcher(s), %d run(s) going", st.PID, st.Version, len(st.Watchers), st.Running)
		if st.HTTP != "" {
			r.Detail = append(r.Detail, "history viewer on "+st.HTTP+" (`tend open`)")
		}
		defs := make([]*watchers.Definition, 0, len(st.Watchers))
		for i := range st.Watchers {
			defs = append(defs, &st.Watchers[i].Definition)
		}
		return defs, r, &st
	}
	r.Level = Fail
	if errors.Is(err, api.ErrNoDaemon) {
		r.Summary = "no tend daemon answers on " + d.Socket
	} else {
		r.Summary = "the daemon did not answer: " + err.Error()
	}
	r.Detail = []string{"nothing is watched until it runs; start it at login (first command) or in a terminal (second):"}
	r.Fix = []string{"tend service install", "tend daemon"}
	var defs []*watchers.Definition
	if d.LoadWatchers != nil {
		var errs []error
		defs, errs = d.LoadWatchers()
		for _, e := range errs {
			st.Problems = append(st.Problems, e.Error())
		}
	}
	return defs, r, &api.Status{Problems: st.Problems, PID: 0}
}

func checkVersions(d Deps, st *api.Status) Result {
	os := d.GOOS + "/" + d.GOARCH
	if d.OSName != "" {
		os += ", " + d.OSName
	}
	r := Result{Check: "versions", Level: OK, Summary: fmt.Sprintf("tend %s, %s, %s", d.Version, d.GoVer, os)}
	if st != nil && st.PID != 0 && st.Version != "" && st.Version != d.Version {
		r.Level = Warn
		r.Detail = []string{fmt.Sprintf("the running daemon is version %s but this tend is %s: restart the daemon so they match", st.Version, d.Version)}
		if d.GOOS == "linux" {
			r.Fix = []string{"systemctl --user restart tend"}
		} else {
			r.Fix = []string{"tend service install"}
		}
	}
	return r
}

// checkWatchers reports definition files that were skipped and watchers
// whose folder is gone or that fell back to polling.
func checkWatchers(d Deps, defs []*watchers.Definition, st *api.Status) Result {
	r := Result{Check: "watchers", Level: OK}
	enabled := 0
	for _, def := range defs {
		if def.Path == "" {
			continue
		}
		if def.Enabled {
			enabled++
		}
		if fi, err := os.Stat(def.Path); err != nil || !fi.IsDir() {
			r.Level = Fail
			r.Detail = append(r.Detail, fmt.Sprintf("%s: folder %s is missing or not a folder", def.Name, def.Path))
			r.Fix = append(r.Fix, fmt.Sprintf("mkdir -p %s   # or remove the watcher: tend rm %s", shellQuote(def.Path), def.Name))
		}
	}
	r.Summary = fmt.Sprintf("%d watcher(s), %d enabled", len(defs), enabled)
	if st != nil {
		for _, p := range st.Problems {
			if r.Level == OK {
				r.Level = Warn
			}
			r.Detail = append(r.Detail, "skipped: "+p)
		}
		if len(st.Problems) > 0 {
			r.Fix = append(r.Fix, "tend list   # then fix or remove the files named above (tend never rewrites a broken one)")
		}
		for _, v := range st.Watchers {
			if v.State.Phase == watchers.PhaseError {
				if r.Level == OK {
					r.Level = Warn
				}
				r.Detail = append(r.Detail, fmt.Sprintf("%s is in error: %s", v.Definition.Name, v.State.Reason))
			}
		}
	}
	if len(defs) == 0 {
		r.Summary = "no watchers yet"
		r.Fix = append(r.Fix, `tend add PATH --name NAME --instructions "what to keep in order"`)
	}
	return r
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// CountDirs counts root and every directory below it, skipping .git and
// not following symlinks: what a recursive inotify watch needs. Folders
// it cannot read are counted but not entered.
func CountDirs(root string) (int, error) {
	n := 0
	err := filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return filepath.SkipDir
		}
		if !de.IsDir() {
			return nil
		}
		if de.Name() == ".git" && p != root {
			return filepath.SkipDir
		}
		n++
		return nil
	})
	return n, err
}
