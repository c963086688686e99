package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// aRun makes a run of every kind of mutation on a seeded folder.
func (e *env) aRun() {
	e.t.Helper()
	for _, s := range runSteps {
		if e.box.opts.DryRun && s.dependent {
			continue // a dry run does not see its own planned changes
		}
		e.mustCall(s.tool, s.args)
	}
}

var runSteps = []struct {
	tool      string
	args      map[string]any
	dependent bool
}{
	{"file_write", map[string]any{"path": "new/n1.txt", "content": "one"}, false},
	{"file_write", map[string]any{"path": "a.txt", "content": "replaced", "overwrite": true}, false},
	{"file_edit", map[string]any{"path": "a.txt", "old": "replaced", "new": "edited twice"}, true},
	{"file_edit", map[string]any{"path": "docs/b.md", "old": "# B", "new": "# Bee"}, false},
	{"file_move", map[string]any{"from": "big.txt", "to": "archive/2024/big.txt"}, false},
	{"file_move", map[string]any{"from": "docs/sub", "to": "moved-sub"}, false},
	{"file_edit", map[string]any{"path": "moved-sub/c.txt", "old": "c", "new": "see"}, true},
	{"file_copy", map[string]any{"from": "bin.dat", "to": "copies/bin.dat"}, false},
	{"file_copy", map[string]any{"from": "many", "to": "many-copy"}, false},
	{"file_delete", map[string]any{"path": "many/f03"}, false},
	{"file_delete", map[string]any{"path": "inlink"}, false},
	{"dir_create", map[string]any{"path": "x/y/z"}, false},
	{"file_write", map[string]any{"path": "x/y/z/w.txt", "content": "w"}, false},
	{"file_move", map[string]any{"from": "x/y/z/w.txt", "to": "w.txt"}, true},
	{"file_delete", map[string]any{"path": "many"}, false},
}

func TestUndoRestoresByteForByte(t *testing.T) {
	e := newEnv(t, false)
	e.seed()
	if err := os.Chmod(filepath.Join(e.root, "a.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, e.root)
	e.aRun()
	if len(diffSnapshots(before, snapshot(t, e.root))) == 0 {
		t.Fatal("the run changed nothing")
	}
	path := filepath.Join(e.backups, "ledger.json")
	if err := e.ledger.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Effects) != len(e.ledger.Effects) || loaded.RunID != "r1" || loaded.Root == "" {
		t.Fatalf("ledger round trip: %d vs %d effects", len(loaded.Effects), len(e.ledger.Effects))
	}
	rep, err := Undo(e.root, loaded, e.opts(false))
	if err != nil {
		t.Fatalf("undo: %v %+v", err, rep)
	}
	if d := diffSnapshots(before, snapshot(t, e.root)); len(d) > 0 {
		t.Fatalf("not restored byte for byte: %v", d)
	}
	// created files went to the trash, not unlinked
	if _, err := os.Stat(filepath.Join(e.trash, "files", "n1.txt")); err != nil {
		t.Errorf("created file not in the trash: %v", err)
	}
	if len(rep.Restored) != len(loaded.Effects) {
		t.Errorf("restored %d of %d", len(rep.Restored), len(loaded.Effects))
	}
}

func TestUndoRefusesAfterOutsideChange(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, e *env)
		want   string
	}{
		{"file edited after the run", func(t *testing.T, e *env) {
			write(t, filepath.Join(e.root, "a.txt"), "someone else was here")
		}, "a.txt: was modified since the run"},
		{"file appeared at a move source", func(t *testing.T, e *env) {
			write(t, filepath.Join(e.root, "big.txt"), "new")
		}, "big.txt: a file appeared"},
		{"created file removed", func(t *testing.T, e *env) {
			os.Remove(filepath.Join(e.root, "new", "n1.txt"))
		}, "new/n1.txt: was removed"},
		{"foreign file in a created folder", func(t *testing.T, e *env) {
			write(t, filepath.Join(e.root, "x", "y", "foreign.txt"), "f")
		}, `x/y: contains "foreign.txt"`},
		{"trash emptied", func(t *testing.T, e *env) {
			os.RemoveAll(filepath.Join(e.trash, "files", "inlink"))
		}, "no longer in the trash"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, false)
			e.seed()
			e.aRun()
			tc.change(t, e)
			mid := snapshot(t, e.root)
			rep, err := Undo(e.root, e.ledger, e.opts(false))
			if err == nil || !strings.Contains(err.Error(), "refused") {
				t.Fatalf("undo should refuse, got %v", err)
			}
			if !strings.Contains(strings.Join(rep.Conflicts, "\n"), tc.want) {
				t.Errorf("conflicts %q lack %q", rep.Conflicts, tc.want)
			}
			if d := diffSnapshots(mid, snapshot(t, e.root)); len(d) > 0 {
				t.Fatalf("a refused undo changed the folder: %v", d)
			}
		})
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	e := newEnv(t, true)
	e.seed()
	before := snapshot(t, e.root)
	e.aRun()
	// the plan is refused where the real run would be
	if _, err := e.call("file_write", map[string]any{"path": "a.txt", "content": "x"}); err == nil {
		t.Error("dry run accepted replacing a file")
	}
	if d := diffSnapshots(before, snapshot(t, e.root)); len(d) > 0 {
		t.Fatalf("dry run changed the folder: %v", d)
	}
	for _, p := range []string{e.trash, e.backups} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("dry run created %s", p)
		}
	}
	eff := e.ledger.Snapshot()
	ops := map[string]int{}
	for _, x := range eff {
		if !x.DryRun {
			t.Errorf("effect %d not flagged DryRun", x.Seq)
		}
		ops[x.Op]++
	}
	for _, op := range []string{OpWrite, OpEdit, OpMove, OpCopy, OpMkdir, OpDelete} {
		if ops[op] == 0 {
			t.Errorf("the plan has no %s: %v", op, ops)
		}
	}
	out := e.mustCall("file_write", map[string]any{"path": "plan.txt", "content": "p"})
	if !strings.Contains(out, "dry run") {
		t.Errorf("output %q does not say dry run", out)
	}
	if _, err := Undo(e.root, e.ledger, e.opts(false)); err == nil || !strings.Contains(err.Error(), "dry run") {
		t.Errorf("undo of a dry run: %v", err)
	}
	if len(e.ledger.Unexplained(e.root, []string{"a.txt"})) != 1 {
		t.Error("a dry-run plan must explain nothing")
	}
}

func TestUnexplained(t *testing.T) {
	e := newEnv(t, false)
	e.seed()
	e.mustCall("file_move", map[string]any{"from": "a.txt", "to": "sorted/a.txt"})
	e.mustCall("file_write", map[string]any{"path": "sorted/n.txt", "content": "n"})
	e.mustCall("file_write", map[string]any{"path": "mine.txt", "content": "m"})
	e.mustCall("file_move", map[string]any{"from": "docs", "to": "papers"})
	e.mustCall("file_delete", map[string]any{"path": "bin.dat"})
	// someone else, meanwhile
	write(t, filepath.Join(e.root, "other.txt"), "o")
	write(t, filepath.Join(e.root, "mine.txt"), "changed by someone else")
	changed := []string{"a.txt", "sorted", "sorted/a.txt", "sorted/n.txt", "mine.txt", "other.txt",
		"docs", "docs/b.md", "docs/sub", "docs/sub/c.txt", "papers", "papers/b.md", "papers/sub/c.txt", "bin.dat", "."}
	got := e.ledger.Unexplained(e.root, changed)
	want := []string{"mine.txt", "other.txt"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("unexplained %v, want %v", got, want)
	}
	// a file recreated at a moved-away path is not explained
	write(t, filepath.Join(e.root, "a.txt"), "back")
	if got := e.ledger.Unexplained(e.root, []string{"a.txt"}); len(got) != 1 {
		t.Errorf("recreated source: %v", got)
	}
}
