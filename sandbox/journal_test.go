package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// crash stands for the process dying at a write-ahead point.
type crash struct{}

// callUntilCrash runs the tool calls on a journalled box whose StepHook
// "dies" at the n-th point, and reports whether it did.
func callUntilCrash(t *testing.T, e *env, n int, calls [][2]string) bool {
	t.Helper()
	e.ledger.UseJournal(filepath.Join(e.backups, JournalFile))
	count := 0
	o := e.opts(false)
	o.StepHook = func(string) {
		if count++; count == n {
			panic(crash{})
		}
	}
	b, err := New(e.root, e.ledger, o)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, c := range calls {
		died := func() (died bool) {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(crash); !ok {
						panic(r)
					}
					died = true
				}
			}()
			if _, err := b.Call(context.Background(), c[0], json.RawMessage(c[1])); err != nil {
				t.Fatalf("%s %s: %v", c[0], c[1], err)
			}
			return false
		}()
		if died {
			return true
		}
	}
	return false
}

// A run cut at any write-ahead point of any kind of change is recovered
// into a ledger whose undo restores the folder exactly.
func TestRecoverJournalAtEveryPoint(t *testing.T) {
	calls := [][2]string{
		{"file_write", `{"path":"n/new.txt","content":"new"}`},
		{"file_write", `{"path":"a.txt","content":"A","overwrite":true}`},
		{"file_edit", `{"path":"b.txt","old":"bb","new":"BB"}`},
		{"file_move", `{"from":"c.txt","to":"m/c.txt"}`},
		{"file_copy", `{"from":"d","to":"dcopy"}`},
		{"file_copy", `{"from":"a.txt","to":"acopy.txt"}`},
		{"file_delete", `{"path":"e.txt"}`},
		{"file_delete", `{"path":"d"}`},
	}
	const points = 3 * 10 // 8 changes and 2 parent folders, 3 points each
	for n := 1; n <= points; n++ {
		e := newEnv(t, false)
		for _, f := range []string{"a.txt", "b.txt", "c.txt", "e.txt", "d/x.txt", "d/y/z.txt"} {
			write(t, filepath.Join(e.root, f), f+" bb")
		}
		before := tree(t, e.root)
		if !callUntilCrash(t, e, n, calls) {
			t.Fatalf("point %d: the run finished without reaching it", n)
		}
		rec, err := RecoverJournal(filepath.Join(e.backups, JournalFile), "", FreedesktopTrash{Dir: e.trash}, nil)
		if err != nil {
			t.Fatalf("point %d: %v", n, err)
		}
		half := 1 // a step under way at intent and applied; none after done
		if n%3 == 0 {
			half = 0
		}
		if len(rec.Ledger.Unresolved) > 0 || len(rec.Settled) != half {
			t.Fatalf("point %d: settled %q, unresolved %q", n, rec.Settled, rec.Ledger.Unresolved)
		}
		jpath := filepath.Join(e.backups, JournalFile)
		if ended, err := JournalEnded(jpath); ended || err != nil {
			t.Fatalf("point %d: an interrupted journal reads as ended (%v)", n, err)
		}
		if err := rec.End(); err != nil {
			t.Fatal(err)
		}
		if ended, err := JournalEnded(jpath); !ended || err != nil {
			t.Fatalf("point %d: a recovered journal does not read as ended (%v)", n, err)
		}
		if _, ended, pending, err := LoadJournal(filepath.Join(e.backups, JournalFile)); err != nil || !ended || pending != 0 {
			t.Fatalf("point %d: after recovery the journal has ended %v, %d pending (%v)", n, ended, pending, err)
		}
		if _, err := Undo(e.root, rec.Ledger, Options{Trash: FreedesktopTrash{Dir: e.trash}, BackupDir: e.backups}); err != nil {
			t.Fatalf("point %d (%s): undo: %v", n, rec.Settled, err)
		}
		if after := tree(t, e.root); after != before {
			t.Fatalf("point %d (%s): undo left\n%s\nwant\n%s", n, rec.Settled, after, before)
		}
	}
}

// A half-done step whose target someone else changed while tend was down
// is left alone and named; the steps before it stay undoable.
func TestRecoverJournalNamesWhatItCannotSettle(t *testing.T) {
	e := newEnv(t, false)
	write(t, filepath.Join(e.root, "a.txt"), "old")
	// point 4 is "applied" of the second change (the overwrite)
	if !callUntilCrash(t, e, 5, [][2]string{
		{"file_write", `{"path":"new.txt","content":"new"}`},
		{"file_write", `{"path":"a.txt","content":"model's","overwrite":true}`},
	}) {
		t.Fatal("no crash")
	}
	write(t, filepath.Join(e.root, "a.txt"), "a person's edit")
	rec, err := RecoverJournal(filepath.Join(e.backups, JournalFile), "", FreedesktopTrash{Dir: e.trash}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Ledger.Unresolved) != 1 || !strings.Contains(rec.Ledger.Unresolved[0], "a.txt") {
		t.Fatalf("unresolved %q; want the overwrite of a.txt named", rec.Ledger.Unresolved)
	}
	if eff := rec.Ledger.Snapshot(); len(eff) != 1 || eff[0].Path != "new.txt" {
		t.Fatalf("kept effects %+v; want the write of new.txt", eff)
	}
	if _, err := Undo(e.root, rec.Ledger, Options{Trash: FreedesktopTrash{Dir: e.trash}, BackupDir: e.backups}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.root, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt is still there after undo (%v)", err)
	}
	if b, _ := os.ReadFile(filepath.Join(e.root, "a.txt")); string(b) != "a person's edit" {
		t.Errorf("a.txt = %q; recovery must leave a file someone else changed alone", b)
	}
}

// tree is snapshot with the modification time of each file, as one string.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	snap := snapshot(t, dir)
	keys := make([]string, 0, len(snap))
	for k := range snap {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString(k + " " + snap[k])
		if fi, err := os.Lstat(filepath.Join(dir, k)); err == nil && !fi.IsDir() {
			b.WriteString(" " + fi.ModTime().Format(time.RFC3339Nano))
		}
		b.WriteString("\n")
	}
	return b.String()
}
