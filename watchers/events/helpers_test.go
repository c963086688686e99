package events

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const waitLimit = 10 * time.Second

// collector reads notices from a source and remembers what it saw.
type collector struct {
	t       *testing.T
	src     Source
	seen    map[string]int
	rescans int
	errs    []error
}

func newCollector(t *testing.T, src Source) *collector {
	t.Helper()
	t.Cleanup(func() { _ = src.Close() })
	return &collector{t: t, src: src, seen: make(map[string]int)}
}

func (c *collector) record(n Notice) {
	for _, p := range n.Paths {
		c.seen[p]++
	}
	if n.Rescan {
		c.rescans++
	}
	if n.Err != nil {
		c.errs = append(c.errs, n.Err)
	}
}

// until collects notices until cond holds, failing after waitLimit.
func (c *collector) until(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	recheck := time.NewTicker(5 * time.Millisecond) // conditions on Mode()
	defer recheck.Stop()
	for !cond() {
		select {
		case <-recheck.C:
		case n, ok := <-c.src.Notices():
			if !ok {
				c.t.Fatalf("notices closed while waiting for %s", what)
			}
			c.record(n)
		case <-deadline.C:
			c.t.Fatalf("timed out waiting for %s; saw paths %v, %d rescans, errors %v", what, c.seen, c.rescans, c.errs)
		}
	}
}

// paths waits until every path was reported.
func (c *collector) paths(ps ...string) {
	c.t.Helper()
	c.until("paths "+filepathsString(ps), func() bool {
		for _, p := range ps {
			if c.seen[p] == 0 {
				return false
			}
		}
		return true
	})
}

// rescan waits for one more Rescan than seen so far.
func (c *collector) rescan() {
	c.t.Helper()
	want := c.rescans + 1
	c.until("a rescan", func() bool { return c.rescans >= want })
}

// rootGone waits for an error saying the root is gone.
func (c *collector) rootGone() {
	c.t.Helper()
	c.until("a root-gone error", func() bool {
		for _, err := range c.errs {
			if RootGone(err) {
				return true
			}
		}
		return false
	})
}

// reset forgets what was seen.
func (c *collector) reset() {
	c.seen, c.rescans, c.errs = make(map[string]int), 0, nil
}

func filepathsString(ps []string) string {
	s := ""
	for _, p := range ps {
		s += " " + filepath.Base(p)
	}
	return s
}

// manualTicker replaces time.NewTicker: the test decides when it ticks.
type manualTicker struct{ c chan time.Time }

func newManualTicker() *manualTicker { return &manualTicker{c: make(chan time.Time)} }

func (m *manualTicker) fn(time.Duration) (<-chan time.Time, func()) { return m.c, func() {} }

// tick blocks until the source took the tick.
func (m *manualTicker) tick(t *testing.T) {
	t.Helper()
	select {
	case m.c <- time.Now():
	case <-time.After(waitLimit):
		t.Fatal("the source never took a tick")
	}
}

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, p, content string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

// skipGitAndNested skips .git and the nested watcher at Projects/x.
func skipGitAndNested(rel string, isDir bool) bool {
	for _, prefix := range []string{".git", "Projects/x"} {
		if rel == prefix || len(rel) > len(prefix) && rel[:len(prefix)+1] == prefix+"/" {
			return true
		}
	}
	return false
}
