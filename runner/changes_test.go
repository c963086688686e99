package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/dispatch/modeltest"
)

const changesRun = "20260302T090000Z-0000000c"

// changesFixture runs a model that edits one file, overwrites another,
// moves a third and creates a fourth.
func changesFixture(t *testing.T) fixture {
	t.Helper()
	f := newFixture(t, modeltest.Sequence(
		modeltest.Calls(
			modeltest.Call("file_edit", `{"path":"notes.md","old":"- call the bank","new":"- called the bank (done)"}`),
			modeltest.Call("file_write", `{"path":"todo.txt","content":"pay invoice 0412\n","overwrite":true}`),
			modeltest.Call("file_move", `{"from":"scan.pdf","to":"Invoices/scan.pdf"}`),
			modeltest.Call("file_write", `{"path":"README.txt","content":"new\n"}`)),
		modeltest.Text("Done.")))
	for name, content := range map[string]string{
		"notes.md": "# Notes\n- call the bank\n- renew passport\n",
		"todo.txt": "old list\n",
		"scan.pdf": "%PDF-1.7",
	} {
		if err := os.WriteFile(filepath.Join(f.def.Path, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if res := f.run(t, changesRun); res.Failed {
		t.Fatalf("the run failed: %s", res.Reason)
	}
	return f
}

func TestChangesShowsTreesAndTextBeforeAndAfter(t *testing.T) {
	f := changesFixture(t)
	rc, err := f.r.Changes(f.def, changesRun)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Undone || rc.DryRun || rc.RunID != changesRun {
		t.Errorf("header: %+v", rc)
	}
	if got, want := treeString(rc.Before), "notes.md:changed scan.pdf:removed todo.txt:changed"; got != want {
		t.Errorf("before tree %q, want %q", got, want)
	}
	if got, want := treeString(rc.After), "Invoices:added Invoices/scan.pdf:added README.txt:added notes.md:changed todo.txt:changed"; got != want {
		t.Errorf("after tree %q, want %q", got, want)
	}
	files := filesByPath(rc.Files)
	if len(rc.Files) != 2 {
		t.Errorf("%d files, want the edit and the overwrite: %+v", len(rc.Files), rc.Files)
	}
	checkFile(t, files["notes.md"], "edit", "# Notes\n- call the bank\n- renew passport\n", "# Notes\n- called the bank (done)\n- renew passport\n")
	checkFile(t, files["todo.txt"], "write", "old list\n", "pay invoice 0412\n")

	// Changed by a person since: the after side cannot come from the
	// folder, but the run's own call rebuilds it.
	if err := os.WriteFile(filepath.Join(f.def.Path, "todo.txt"), []byte("someone else's"), 0o644); err != nil {
		t.Fatal(err)
	}
	rc, err = f.r.Changes(f.def, changesRun)
	if err != nil {
		t.Fatal(err)
	}
	checkFile(t, filesByPath(rc.Files)["todo.txt"], "write", "old list\n", "pay invoice 0412\n")
}

func TestChangesOfAnUndoneRun(t *testing.T) {
	f := changesFixture(t)
	if _, err := f.r.Undo(context.Background(), f.def, changesRun); err != nil {
		t.Fatal(err)
	}
	rc, err := f.r.Changes(f.def, changesRun)
	if err != nil {
		t.Fatal(err)
	}
	if !rc.Undone {
		t.Error("an undone run is not marked undone")
	}
	files := filesByPath(rc.Files)
	checkFile(t, files["notes.md"], "edit", "# Notes\n- call the bank\n- renew passport\n", "# Notes\n- called the bank (done)\n- renew passport\n")
	checkFile(t, files["todo.txt"], "write", "old list\n", "pay invoice 0412\n")
}

func TestChangesRefusesBadRunsAndTamperedBackups(t *testing.T) {
	f := changesFixture(t)
	if _, err := f.r.Changes(f.def, "../../etc"); err == nil || !strings.Contains(err.Error(), "not a run id") {
		t.Errorf("a path as run id: %v", err)
	}
	if _, err := f.r.Changes(f.def, "20270101T000000Z-deadbeef"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an unknown run: %v, want a not-found error", err)
	}
	// A ledger edited to name a file outside the run's folder.
	secret := filepath.Join(f.h.Dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("do not show"), 0o600); err != nil {
		t.Fatal(err)
	}
	lp := filepath.Join(f.h.Runs(), f.def.ID, changesRun, "ledger.json")
	b, err := os.ReadFile(lp)
	if err != nil {
		t.Fatal(err)
	}
	var bak string
	for _, part := range strings.Split(string(b), `"backup": "`)[1:] {
		bak = part[:strings.Index(part, `"`)]
		break
	}
	b = []byte(strings.ReplaceAll(string(b), bak, "../../../secret.txt"))
	if err := os.WriteFile(lp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	rc, err := f.r.Changes(f.def, changesRun)
	if err != nil {
		t.Fatal(err)
	}
	for _, fc := range rc.Files {
		if (fc.Before != nil && strings.Contains(*fc.Before, "do not show")) || (fc.After != nil && strings.Contains(*fc.After, "do not show")) {
			t.Fatalf("a tampered ledger showed an outside file: %+v", fc)
		}
	}
	if fc := rc.Files[0]; fc.Before != nil || !strings.Contains(fc.Note, "not a backup name") {
		t.Errorf("tampered backup of %s: before %v, note %q", fc.Path, fc.Before, fc.Note)
	}
}

func TestChangesCapsLargeFiles(t *testing.T) {
	big := strings.Repeat("line of a long ledger\n", 20000) // ~430 KiB
	f := newFixture(t, modeltest.Sequence(
		modeltest.Calls(modeltest.Call("file_edit", `{"path":"big.txt","old":"HEAD","new":"TOP"}`)),
		modeltest.Text("Done.")))
	if err := os.WriteFile(filepath.Join(f.def.Path, "big.txt"), []byte("HEAD\n"+big), 0o644); err != nil {
		t.Fatal(err)
	}
	f.run(t, changesRun)
	rc, err := f.r.Changes(f.def, changesRun)
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Files) != 1 || rc.Files[0].Before != nil || rc.Files[0].After != nil || !strings.Contains(rc.Files[0].Note, "too large") {
		t.Fatalf("a large file: %+v", rc.Files)
	}
}

func treeString(es []api.TreeEntry) string {
	var parts []string
	for _, e := range es {
		parts = append(parts, e.Path+":"+e.Status)
	}
	return strings.Join(parts, " ")
}

func filesByPath(fs []api.FileChange) map[string]api.FileChange {
	m := map[string]api.FileChange{}
	for _, f := range fs {
		m[f.Path] = f
	}
	return m
}

func checkFile(t *testing.T, fc api.FileChange, op, before, after string) {
	t.Helper()
	if fc.Op != op {
		t.Errorf("%s: op %q, want %q", fc.Path, fc.Op, op)
	}
	if fc.Before == nil || *fc.Before != before {
		t.Errorf("%s: before %v (note %q), want %q", fc.Path, deref(fc.Before), fc.Note, before)
	}
	if fc.After == nil || *fc.After != after {
		t.Errorf("%s: after %v (note %q), want %q", fc.Path, deref(fc.After), fc.Note, after)
	}
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
