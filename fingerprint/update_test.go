package fingerprint

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestUpdateMatchesBuild applies random changes to a folder, feeds every
// touched path to Update, and checks the result equals a fresh Build.
func TestUpdateMatchesBuild(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 42))
			root := t.TempDir()
			var initial []string
			for i := 0; i < 40; i++ {
				initial = append(initial, fmt.Sprintf("d%d/s%d/f%d.txt", r.IntN(4), r.IntN(3), i))
			}
			write(t, root, initial...)
			tr := build(t, root, Options{Ignore: []string{"*.log"}})
			for round := 0; round < 5; round++ {
				before := tr
				beforeHash, beforePaths := tr.RootHash(), paths(tr)
				touched := mutate(t, r, root, 6)
				r.Shuffle(len(touched), func(i, j int) { touched[i], touched[j] = touched[j], touched[i] })
				for _, p := range touched {
					var err error
					if tr, err = tr.Update(p); err != nil {
						t.Fatalf("Update(%q): %v", p, err)
					}
				}
				fresh := build(t, root, Options{Ignore: []string{"*.log"}})
				batch, err := before.UpdatePaths(touched)
				if err != nil || batch.RootHash() != fresh.RootHash() {
					t.Fatalf("round %d: UpdatePaths(%v) differs from a fresh build (err %v)", round, touched, err)
				}
				if tr.RootHash() != fresh.RootHash() {
					t.Fatalf("round %d: after updating %v the tree differs from a fresh build: %+v", round, touched, Diff(tr, fresh))
				}
				f1, d1 := tr.Counts()
				f2, d2 := fresh.Counts()
				if f1 != f2 || d1 != d2 {
					t.Fatalf("round %d: counts %d/%d, fresh build %d/%d", round, f1, d1, f2, d2)
				}
				if !slices.Equal(paths(tr), paths(fresh)) {
					t.Fatalf("round %d: entries differ from a fresh build", round)
				}
				// The old tree is untouched.
				if before.RootHash() != beforeHash || !slices.Equal(paths(before), beforePaths) {
					t.Fatalf("round %d: Update changed the tree it was called on", round)
				}
			}
		})
	}
}

// mutate makes n random changes and returns the paths an event layer would
// report for them.
func mutate(t *testing.T, r *rand.Rand, root string, n int) []string {
	t.Helper()
	var touched []string
	for i := 0; i < n; i++ {
		var all []string
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && p != root {
				rel, _ := filepath.Rel(root, p)
				all = append(all, filepath.ToSlash(rel))
			}
			return nil
		})
		pick := func() string {
			if len(all) == 0 {
				return "x"
			}
			return all[r.IntN(len(all))]
		}
		switch r.IntN(7) {
		case 0: // create a file
			p := fmt.Sprintf("%s/new%d.txt", filepath.Dir(pick()), r.IntN(1000))
			write(t, root, p)
			touched = append(touched, filepath.ToSlash(filepath.Clean(p)))
		case 1: // modify
			p := pick()
			touch(t, root, p, r.IntN(100000))
			touched = append(touched, p)
		case 2: // remove (file or whole folder)
			p := pick()
			rm(t, root, p)
			touched = append(touched, p)
		case 3: // rename
			p := pick()
			to := fmt.Sprintf("ren%d", r.IntN(1000))
			if _, err := os.Lstat(filepath.Join(root, to)); err == nil {
				continue
			}
			mv(t, root, p, to)
			touched = append(touched, p, to)
		case 4: // a new folder with contents; only the deepest file is reported
			p := fmt.Sprintf("nd%d/a/b/c%d.txt", r.IntN(100), r.IntN(10))
			write(t, root, p, filepath.Dir(p)+"/other.txt")
			touched = append(touched, p)
		case 5: // an ignored file
			p := fmt.Sprintf("%s/x%d.log", filepath.Dir(pick()), r.IntN(10))
			write(t, root, p)
			touched = append(touched, filepath.ToSlash(filepath.Clean(p)))
		case 6: // a file becomes a folder
			p := pick()
			rm(t, root, p)
			write(t, root, p+"/inside.txt")
			touched = append(touched, p)
		}
	}
	return touched
}

func TestUpdateNewFolderFromDeepEvent(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.txt")
	tr := build(t, root, Options{})
	write(t, root, "new/sub/deep.txt", "new/sibling.txt")
	up, err := tr.Update("new/sub/deep.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"new", "new/sibling.txt", "new/sub", "new/sub/deep.txt"}
	if got := Diff(tr, up).Added; !slices.Equal(got, want) {
		t.Errorf("added = %v, want %v", got, want)
	}
	if f, d := up.Counts(); f != 3 || d != 2 {
		t.Errorf("Counts() = %d, %d; want 3, 2", f, d)
	}
	// Removing a path that was never there changes nothing.
	same, err := up.Update("never/was")
	if err != nil || same != up {
		t.Errorf("Update of an unknown missing path = %v, %v", same, err)
	}
	if _, err := up.Update("../outside"); err == nil {
		t.Error("Update of a path outside the folder was accepted")
	}
}

func TestUpdateTendIgnoreRebuilds(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.log", "b.txt")
	tr := build(t, root, Options{})
	if err := os.WriteFile(filepath.Join(root, TendIgnoreFile), []byte("*.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	up, err := tr.Update(TendIgnoreFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := up.Lookup("a.log"); ok || !up.Ignored("a.log", false) {
		t.Error("after .tendignore changed, a.log is still fingerprinted")
	}
	if _, ok := tr.Lookup("a.log"); !ok {
		t.Error("the old tree changed")
	}
}

func TestUpdateKeepsUnchangedNodesShared(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/x.txt", "b/y.txt", "b/z.txt")
	tr := build(t, root, Options{})
	touch(t, root, "b/y.txt", 3)
	up, err := tr.Update("b/y.txt")
	if err != nil {
		t.Fatal(err)
	}
	if tr.find("a").kids != up.find("a").kids {
		t.Error("the unchanged folder a was copied instead of shared")
	}
	if got := Diff(tr, up); !slices.Equal(got.Modified, []string{"b/y.txt"}) || len(got.Added)+len(got.Removed) != 0 {
		t.Errorf("Diff = %+v", got)
	}
}

func TestUpdatePathsMatchesBuild(t *testing.T) {
	root := t.TempDir()
	var initial []string
	for i := 0; i < 60; i++ {
		initial = append(initial, fmt.Sprintf("big/f%02d", i), fmt.Sprintf("top%02d", i))
	}
	write(t, root, append(initial, "big/sub/keep", "locked/x")...)
	locked := true
	opts := Options{openDirHook: func(rel string) error {
		if locked && rel == "locked" {
			return os.ErrPermission
		}
		return nil
	}}
	tr := build(t, root, opts)
	var touched []string
	for i := 0; i < 60; i += 2 { // many changes in big/ and in the root
		touch(t, root, fmt.Sprintf("big/f%02d", i), i)
		rm(t, root, fmt.Sprintf("top%02d", i))
		touched = append(touched, fmt.Sprintf("big/f%02d", i), fmt.Sprintf("top%02d", i))
	}
	write(t, root, "big/newdir/a", "newtop/b", "big/sub/added")
	touched = append(touched, "big/newdir", "newtop/b", "big/sub/added")
	locked = false
	touched = append(touched, "locked")
	up, err := tr.UpdatePaths(touched)
	if err != nil {
		t.Fatal(err)
	}
	fresh := build(t, root, Options{})
	if up.RootHash() != fresh.RootHash() || !slices.Equal(paths(up), paths(fresh)) {
		t.Fatalf("UpdatePaths differs from a fresh build: %+v", Diff(up, fresh))
	}
	f1, d1 := up.Counts()
	f2, d2 := fresh.Counts()
	if f1 != f2 || d1 != d2 || len(up.Skipped()) != 0 {
		t.Errorf("counts %d/%d (fresh %d/%d), skipped %v", f1, d1, f2, d2, up.Skipped())
	}
	if _, err := tr.UpdatePaths([]string{"../x"}); err == nil {
		t.Error("a path outside the folder was accepted")
	}
}
