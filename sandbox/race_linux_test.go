//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSymlinkSwapRace flips a folder between a real directory and a link
// pointing outside while tools write through it: nothing may ever land
// outside.
func TestSymlinkSwapRace(t *testing.T) {
	for _, walkMode := range []bool{false, true} {
		t.Run(map[bool]string{false: "openat2", true: "walk"}[walkMode], func(t *testing.T) {
			e := newEnv(t, false)
			e.box.fs.forceWalk = walkMode
			write(t, filepath.Join(e.root, "a.txt"), "A")
			d := filepath.Join(e.root, "d")
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(e.root, "d.link")
			if err := os.Symlink(e.outside, link); err != nil {
				t.Fatal(err)
			}
			var stop atomic.Bool
			var wg sync.WaitGroup
			var flips atomic.Int64
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					// atomically swap the real folder and the outward link
					if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
						t.Errorf("swap: %v", err)
						return
					}
					flips.Add(1)
					runtime.Gosched()
				}
			}()
			ops := []struct {
				tool string
				args func(i int) map[string]any
			}{
				{"file_write", func(i int) map[string]any { return map[string]any{"path": "d/w" + strconv.Itoa(i), "content": "x"} }},
				{"dir_create", func(i int) map[string]any { return map[string]any{"path": "d/m" + strconv.Itoa(i) + "/n"} }},
				{"file_copy", func(i int) map[string]any { return map[string]any{"from": "a.txt", "to": "d/c" + strconv.Itoa(i)} }},
				{"file_write", func(i int) map[string]any {
					return map[string]any{"path": "d/w" + strconv.Itoa(i-3), "content": "y", "overwrite": true}
				}},
			}
			okCalls, refused := 0, 0
			for i := 0; i < 400; i++ {
				op := ops[i%len(ops)]
				if _, err := e.call(op.tool, op.args(i)); err == nil {
					okCalls++
				} else if refused++; !isToolError(err) {
					t.Fatalf("%s: not a ToolError: %v", op.tool, err)
				}
			}
			stop.Store(true)
			wg.Wait()
			if flips.Load() == 0 || okCalls == 0 {
				t.Fatalf("no race happened: %d flips, %d successful calls", flips.Load(), okCalls)
			}
			t.Logf("%d flips, %d calls succeeded, %d refused", flips.Load(), okCalls, refused)
			entries, err := os.ReadDir(e.outside)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 0 {
				t.Fatalf("%d entries were written outside the folder, e.g. %s", len(entries), entries[0].Name())
			}
		})
	}
}
