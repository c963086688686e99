package watchers_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tend-agent/tend/fingerprint"
	"github.com/tend-agent/tend/internal/testutil"
	"github.com/tend-agent/tend/watchers/events"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Each change on a real folder, seen by the real kernel watcher, gives one
// dispatch listing exactly what changed.
func TestEngineDispatchesExactChanges(t *testing.T) {
	t.Parallel()
	hundred := func() []string {
		out := []string{"fresh"}
		for i := range 100 {
			out = append(out, fmt.Sprintf("fresh/f%03d.txt", i))
		}
		return out
	}()
	cases := []struct {
		name  string
		setup map[string]string
		op    func(t *testing.T, root string)
		want  fingerprint.Changes
		seen  []string // what the source reports (default: every changed path)
	}{
		{
			name: "create",
			op:   func(t *testing.T, root string) { testutil.Write(t, root, "a.txt", "hello") },
			want: fingerprint.Changes{Added: []string{"a.txt"}},
		},
		{
			name:  "create in a subfolder",
			setup: map[string]string{"sub/keep.txt": "k"},
			op:    func(t *testing.T, root string) { testutil.Write(t, root, "sub/deep/b.txt", "b") },
			want:  fingerprint.Changes{Added: []string{"sub/deep", "sub/deep/b.txt"}},
		},
		{
			name:  "modify",
			setup: map[string]string{"m.txt": "old"},
			op:    func(t *testing.T, root string) { testutil.Write(t, root, "m.txt", "new and longer") },
			want:  fingerprint.Changes{Modified: []string{"m.txt"}},
		},
		{
			name:  "delete",
			setup: map[string]string{"d.txt": "bye", "stay.txt": "s"},
			op:    func(t *testing.T, root string) { must(t, os.Remove(filepath.Join(root, "d.txt"))) },
			want:  fingerprint.Changes{Removed: []string{"d.txt"}},
		},
		{
			name:  "rename",
			setup: map[string]string{"old.txt": "o"},
			op: func(t *testing.T, root string) {
				must(t, os.Rename(filepath.Join(root, "old.txt"), filepath.Join(root, "new.txt")))
			},
			want: fingerprint.Changes{Added: []string{"new.txt"}, Removed: []string{"old.txt"}},
		},
		{
			name:  "rename a folder",
			setup: map[string]string{"dir/x.txt": "x"},
			op: func(t *testing.T, root string) {
				must(t, os.Rename(filepath.Join(root, "dir"), filepath.Join(root, "moved")))
			},
			want: fingerprint.Changes{Added: []string{"moved", "moved/x.txt"}, Removed: []string{"dir", "dir/x.txt"}},
			seen: []string{"dir", "moved"},
		},
		{
			name:  "atomic save (temp then rename over)",
			setup: map[string]string{"doc.md": "v1"},
			op: func(t *testing.T, root string) {
				tmp := filepath.Join(root, "doc.md.tmp1234")
				must(t, os.WriteFile(tmp, []byte("version two"), 0o644))
				must(t, os.Rename(tmp, filepath.Join(root, "doc.md")))
			},
			want: fingerprint.Changes{Modified: []string{"doc.md"}},
		},
		{
			name:  "vim-style save (probe 4913, backup~, rewrite)",
			setup: map[string]string{"notes.txt": "v1"},
			op: func(t *testing.T, root string) {
				p := filepath.Join(root, "notes.txt")
				probe := filepath.Join(root, "4913")
				must(t, os.WriteFile(probe, nil, 0o644))
				must(t, os.Remove(probe))
				must(t, os.Rename(p, p+"~"))
				must(t, os.WriteFile(p, []byte("version two"), 0o644))
				must(t, os.Remove(p+"~"))
			},
			want: fingerprint.Changes{Modified: []string{"notes.txt"}},
		},
		{
			name: "new subfolder filled right after creation",
			op: func(t *testing.T, root string) {
				d := filepath.Join(root, "fresh")
				must(t, os.Mkdir(d, 0o755))
				for i := range 100 {
					must(t, os.WriteFile(filepath.Join(d, fmt.Sprintf("f%03d.txt", i)), []byte("x"), 0o644))
				}
			},
			want: fingerprint.Changes{Added: hundred},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			for rel, c := range tc.setup {
				testutil.Write(t, root, rel, c)
			}
			h := startEngine(t, root, nil)
			tc.op(t, root)
			seen := tc.seen
			if seen == nil {
				seen = changedPaths(tc.want)
			}
			h.waitSeen(seen...)
			p := h.fire()
			if p.Trigger != "change" {
				t.Errorf("trigger %q, want change", p.Trigger)
			}
			if !testutil.Equal(p.Changes, tc.want) {
				t.Fatalf("dispatched %+v\nwant       %+v", testutil.Norm(p.Changes), testutil.Norm(tc.want))
			}
			h.quiet()
		})
	}
}

// A new watcher takes a baseline first: what is already there is not news.
func TestEngineBaselineFirst(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for i := range 50 {
		testutil.Write(t, root, fmt.Sprintf("d%d/f%d.txt", i%5, i), "old")
	}
	h := startEngine(t, root, nil)
	if n := len(h.run.Passes("")); n != 0 {
		t.Fatalf("a new watcher dispatched %d passes for files that were already there", n)
	}
	if st := h.state(); st.Files != 50 || st.Dirs != 5 {
		t.Errorf("baseline counts %d files, %d dirs; want 50, 5", st.Files, st.Dirs)
	}
	h.quiet() // the first dispatch lists only the one new file
}

// An inotify overflow loses events; the rescan it asks for still finds
// every change, in one dispatch.
func TestEngineOverflowRescanFindsAll(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testutil.Write(t, root, "keep.txt", "k")
	testutil.Write(t, root, "mod.txt", "v1")
	testutil.Write(t, root, "gone.txt", "g")
	testutil.Write(t, root, "a/b/deep.txt", "d")
	h := startEngine(t, root, nil)

	// Lose every event of these changes, as an overflowed queue would.
	tp := h.tap()
	tp.setSuppress(true)
	testutil.Write(t, root, "new.txt", "n")
	testutil.Write(t, root, "mod.txt", "version two")
	must(t, os.Remove(filepath.Join(root, "gone.txt")))
	testutil.Write(t, root, "a/b/deep.txt", "deeper change")
	testutil.Write(t, root, "a/c/born.txt", "b")
	// Events are ordered: once this one is dropped, all before it were.
	testutil.Write(t, root, "zz-lost.txt", "l")
	h.waitSeen("zz-lost.txt")
	tp.setSuppress(false)
	if h.phase() != "idle" {
		t.Fatalf("engine saw suppressed events: phase %s", h.phase())
	}

	tp.inject(events.Notice{Rescan: true})
	p := h.fire()
	want := fingerprint.Changes{
		Added:    []string{"a/c", "a/c/born.txt", "new.txt", "zz-lost.txt"},
		Removed:  []string{"gone.txt"},
		Modified: []string{"a/b/deep.txt", "mod.txt"},
	}
	if !testutil.Equal(p.Changes, want) {
		t.Fatalf("after the overflow dispatched %+v\nwant %+v", testutil.Norm(p.Changes), want)
	}
	h.quiet()
}
