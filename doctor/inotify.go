package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/watchers"
)

// Where Linux keeps the per-user inotify limits.
const (
	procWatches   = "/proc/sys/fs/inotify/max_user_watches"
	procInstances = "/proc/sys/fs/inotify/max_user_instances"
	sysctlFile    = "/etc/sysctl.d/60-tend-inotify.conf"
)

// checkInotify compares the limits with what the watchers need: one watch
// per directory of each enabled recursive watcher (one for a flat one),
// and one inotify instance per watcher plus the daemon's own.
func checkInotify(d Deps, defs []*watchers.Definition, st *api.Status) Result {
	r := Result{Check: "inotify"}
	if d.GOOS != "linux" {
		r.Level = OK
		r.Summary = "not used on " + d.GOOS + " (FSEvents has no per-folder limit)"
		return r
	}
	maxWatches, err1 := readInt(d, procWatches)
	maxInst, err2 := readInt(d, procInstances)
	if err1 != nil || err2 != nil {
		r.Level = Warn
		r.Summary = "cannot read the inotify limits"
		for _, e := range []error{err1, err2} {
			if e != nil {
				r.Detail = append(r.Detail, e.Error())
			}
		}
		return r
	}
	watches, inst := 0, 1 // the daemon watches its own store folder
	for _, def := range defs {
		if def.Path == "" || !def.Enabled {
			continue
		}
		inst++
		if !def.Recursive {
			watches++
			continue
		}
		n := 1
		if d.CountDirs != nil {
			c, err := d.CountDirs(def.Path)
			if err != nil {
				r.Detail = append(r.Detail, fmt.Sprintf("%s: could not count folders under %s: %v", def.Name, def.Path, err))
			} else {
				n = c
			}
		}
		watches += n
	}
	watches++ // the store folder
	r.Level = OK
	r.Summary = fmt.Sprintf("the watchers need %d watch(es) of max_user_watches %d, and %d instance(s) of max_user_instances %d", watches, maxWatches, inst, maxInst)
	// Other programs (editors, IDEs, sync tools) use the same per-user
	// budget: warn well before the limit.
	switch {
	case watches > maxWatches:
		r.Level = Fail
		r.Detail = append(r.Detail, "too few inotify watches: folders beyond the limit fall back to slow polling")
	case watches*10 > maxWatches*8:
		r.Level = Warn
		r.Detail = append(r.Detail, "the watchers use most of the inotify watches; other programs need some too")
	}
	if r.Level != OK {
		n := suggest(watches, 524288)
		r.Fix = append(r.Fix, fmt.Sprintf("sudo sysctl fs.inotify.max_user_watches=%d", n),
			fmt.Sprintf("echo fs.inotify.max_user_watches=%d | sudo tee -a %s   # keeps it after a reboot", n, sysctlFile))
	}
	instLevel := OK
	switch {
	case inst > maxInst:
		instLevel = Fail
		r.Detail = append(r.Detail, "too few inotify instances: some watchers cannot start their watch")
	case inst*2 > maxInst:
		instLevel = Warn
		r.Detail = append(r.Detail, "the watchers use half or more of the inotify instances; other programs need some too")
	}
	if instLevel != OK {
		n := suggest(inst, 1024)
		r.Fix = append(r.Fix, fmt.Sprintf("sudo sysctl fs.inotify.max_user_instances=%d", n),
			fmt.Sprintf("echo fs.inotify.max_user_instances=%d | sudo tee -a %s   # keeps it after a reboot", n, sysctlFile))
		if worse(instLevel, r.Level) {
			r.Level = instLevel
		}
	}
	if st != nil {
		for _, v := range st.Watchers {
			if v.State.WatchMode == "poll" && v.Definition.Enabled {
				if r.Level == OK {
					r.Level = Warn
				}
				r.Detail = append(r.Detail, fmt.Sprintf("%s is polling instead of using inotify: %s", v.Definition.Name, v.State.WatchReason))
			}
		}
	}
	return r
}

func worse(a, b Level) bool {
	rank := map[Level]int{OK: 0, Warn: 1, Fail: 2}
	return rank[a] > rank[b]
}

// suggest is a generous new limit: twice the need, rounded up to a power
// of two, and at least floor.
func suggest(need, floor int) int {
	n := floor
	for n < 2*need {
		n *= 2
	}
	return n
}

func readInt(d Deps, path string) (int, error) {
	if d.ReadFile == nil {
		return 0, fmt.Errorf("reading %s: not available", path)
	}
	b, err := d.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("reading %s: %q is not a number", path, strings.TrimSpace(string(b)))
	}
	return n, nil
}
