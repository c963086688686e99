package fingerprint

import (
	"context"
	"errors"
	"fmt"
	"github.com/tend-agent/tend/internal/unpriv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tend-agent/tend/fingerprint/internal/treegen"
)

func TestBuildRecordsEntries(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.txt", "dir/b.txt", "dir/sub/c.txt", "empty/")
	if err := os.Symlink(filepath.Join(root, "dir"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	tr := build(t, root, Options{})
	files, dirs := tr.Counts()
	if files != 4 || dirs != 3 {
		t.Errorf("Counts() = %d files, %d dirs; want 4, 3", files, dirs)
	}
	want := []string{"a.txt", "dir", "dir/b.txt", "dir/sub", "dir/sub/c.txt", "empty", "link"}
	if got := paths(tr); !sameStrings(got, want) {
		t.Errorf("entries = %v, want %v", got, want)
	}
	for _, c := range []struct {
		path string
		kind Kind
	}{{"a.txt", KindFile}, {"dir", KindDir}, {"link", KindSymlink}, {"dir/sub/c.txt", KindFile}} {
		e, ok := tr.Lookup(c.path)
		if !ok || e.Kind != c.kind {
			t.Errorf("Lookup(%q) = %+v, %v; want kind %v", c.path, e, ok, c.kind)
		}
	}
	if e, _ := tr.Lookup("a.txt"); e.Size != int64(len("content of a.txt")) || e.MtimeNs == 0 {
		t.Errorf("Lookup(a.txt) = %+v: wrong size or no mtime", e)
	}
	if _, ok := tr.Lookup("link/b.txt"); ok {
		t.Error("the walk followed a symlink to a directory")
	}
	if tr.Root() != root {
		t.Errorf("Root() = %q, want %q", tr.Root(), root)
	}
	if again := build(t, root, Options{}); again.RootHash() != tr.RootHash() {
		t.Error("two builds of an unchanged folder give different hashes")
	}
}

func TestEqualSubtreesHashEqual(t *testing.T) {
	root := t.TempDir()
	write(t, root, "x/f1", "x/d/f2", "y/f1", "y/d/f2")
	for _, p := range []string{"x/f1", "x/d/f2", "y/f1", "y/d/f2"} {
		touch(t, root, p, 7)
	}
	tr := build(t, root, Options{})
	if tr.find("x").hash != tr.find("y").hash {
		t.Error("identical subtrees x and y have different hashes")
	}
}

func TestBuildBadRoot(t *testing.T) {
	root := t.TempDir()
	write(t, root, "file.txt")
	for _, c := range []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(root, "nope"), "does not exist"},
		{"file", filepath.Join(root, "file.txt"), "not a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Build(context.Background(), c.path, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
				t.Errorf("Build(%s) error = %v, want one naming the path and saying %q", c.path, err, c.want)
			}
		})
	}
	if _, err := Build(context.Background(), root, Options{Ignore: []string{"[bad"}}); err == nil {
		t.Error("a malformed ignore pattern was accepted")
	}
}

func TestBuildCancelled(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/b")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, root, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Build with a cancelled context: err = %v", err)
	}
}

func TestSkippedUnreadableFolder(t *testing.T) {
	root := t.TempDir()
	write(t, root, "ok/a.txt", "locked/secret.txt", "locked/deeper/x")
	hook := func(rel string) error {
		if rel == "locked" {
			return &fs.PathError{Op: "open", Path: filepath.Join(root, rel), Err: fs.ErrPermission}
		}
		return nil
	}
	tr := build(t, root, Options{openDirHook: hook})
	sk := tr.Skipped()
	if len(sk) != 1 || sk[0].Path != "locked" || sk[0].Err != "permission denied" {
		t.Fatalf("Skipped() = %+v, want [locked: permission denied]", sk)
	}
	if _, ok := tr.Lookup("ok/a.txt"); !ok {
		t.Error("the readable part of the folder was not fingerprinted")
	}
	if e, ok := tr.Lookup("locked"); !ok || e.Kind != KindDir {
		t.Error("the unreadable folder itself is not recorded")
	}

	// Once readable, updating the folder brings its contents in and clears the skip.
	tr.opts.openDirHook = nil
	up, err := tr.Update("locked")
	if err != nil {
		t.Fatal(err)
	}
	if len(up.Skipped()) != 0 {
		t.Errorf("after the folder became readable Skipped() = %+v", up.Skipped())
	}
	if fresh := build(t, root, Options{}); fresh.RootHash() != up.RootHash() {
		t.Errorf("update after unlocking differs from a fresh build: %+v", Diff(fresh, up))
	}
}

func TestSkippedRealPermission(t *testing.T) {
	if unpriv.Rerun(t) {
		return // ran as an unprivileged user
	}
	root := t.TempDir()
	write(t, root, "ok/a.txt", "locked/secret.txt")
	if err := os.Chmod(filepath.Join(root, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(root, "locked"), 0o755) })
	tr := build(t, root, Options{})
	if sk := tr.Skipped(); len(sk) != 1 || sk[0].Path != "locked" {
		t.Errorf("Skipped() = %+v, want [locked]", sk)
	}
}

func TestKindText(t *testing.T) {
	for k := KindFile; k <= KindOther; k++ {
		b, _ := k.MarshalText()
		var back Kind
		if err := back.UnmarshalText(b); err != nil || back != k {
			t.Errorf("kind %d: %q round-trips to %d (%v)", k, b, back, err)
		}
	}
	var k Kind
	if err := k.UnmarshalText([]byte("blob")); err == nil {
		t.Error("an unknown kind name was accepted")
	}
}

// TestBuildMatchesReferenceWalk compares a parallel build of a generated
// tree, and of a folder wider than maxEagerOpen, with a plain sequential
// walk.
func TestBuildMatchesReferenceWalk(t *testing.T) {
	root := t.TempDir()
	if _, _, err := treegen.Generate(root, 3000, 7); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < maxEagerOpen+6; i++ {
		write(t, root, fmt.Sprintf("wide/d%03d/f", i))
	}
	tr := build(t, root, Options{})
	want := map[string]Entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		k := KindFile
		if fi.IsDir() {
			k = KindDir
		}
		want[rel] = Entry{Path: rel, Kind: k, Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	tr.Walk(func(e Entry) bool {
		got++
		w, ok := want[e.Path]
		if !ok || w.Kind != e.Kind || w.MtimeNs != e.MtimeNs || (e.Kind == KindFile && w.Size != e.Size) {
			t.Errorf("entry %+v, reference walk has %+v", e, w)
		}
		return true
	})
	if got != len(want) {
		t.Errorf("tree has %d entries, reference walk %d", got, len(want))
	}
	if f, d := tr.Counts(); f+d != len(want) {
		t.Errorf("Counts() = %d+%d, want %d in all", f, d, len(want))
	}
}
