package watchers_test

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=tend test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// gitRepo makes a repository whose branches main and other differ in
// about 3000 files: a thousand changed, a thousand removed (whole folders)
// and a thousand added (new folders and existing ones).
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	git(t, root, "init", "-q")
	git(t, root, "checkout", "-q", "-b", "main")
	write := func(rel, content string) {
		p := root + "/" + rel
		if err := os.MkdirAll(path.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for d := range 30 {
		for f := range 100 {
			write(fmt.Sprintf("src/d%02d/f%03d.txt", d, f), fmt.Sprintf("file %d/%d\n", d, f))
		}
	}
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "main")
	git(t, root, "checkout", "-q", "-b", "other")
	for d := range 10 {
		for f := range 100 {
			write(fmt.Sprintf("src/d%02d/f%03d.txt", d, f), fmt.Sprintf("changed on other %d/%d, longer\n", d, f))
		}
	}
	for d := 10; d < 20; d++ {
		if err := os.RemoveAll(fmt.Sprintf("%s/src/d%02d", root, d)); err != nil {
			t.Fatal(err)
		}
	}
	for n := range 9 {
		for f := range 100 {
			write(fmt.Sprintf("new/n%02d/g%03d.md", n, f), fmt.Sprintf("new %d/%d\n", n, f))
		}
	}
	for f := range 100 {
		write(fmt.Sprintf("src/d25/extra%03d.txt", f), "extra\n")
	}
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "other")
	git(t, root, "checkout", "-q", "main")
	return root
}

// A git checkout of another branch rewrites thousands of files; the
// watcher dispatches once, with exactly the files git changed.
func TestEngineGitCheckoutOneDispatch(t *testing.T) {
	t.Parallel()
	root := gitRepo(t)
	var added, removed, modified []string
	for _, line := range strings.Split(strings.TrimSpace(git(t, root, "diff", "--no-renames", "--name-status", "main", "other")), "\n") {
		st, p, _ := strings.Cut(line, "\t")
		switch st {
		case "A":
			added = append(added, p)
		case "D":
			removed = append(removed, p)
		case "M":
			modified = append(modified, p)
		default:
			t.Fatalf("unexpected diff line %q", line)
		}
	}
	if n := len(added) + len(removed) + len(modified); n != 3000 {
		t.Fatalf("the branches differ in %d files, want 3000", n)
	}

	h := startEngine(t, root, nil)
	git(t, root, "checkout", "-q", "other")
	h.waitSeen(append(append(append([]string{}, added...), removed...), modified...)...)
	p := h.fire()

	// Folders that appeared or vanished are listed too; the files must be
	// exactly git's.
	dirs := map[string]bool{}
	for _, f := range append(append([]string{}, added...), removed...) {
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	files := func(kind string, got []string) []string {
		var out []string
		for _, g := range got {
			if dirs[g] && kind != "modified" {
				continue
			}
			out = append(out, g)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		kind      string
		got, want []string
	}{
		{"added", p.Changes.Added, added},
		{"removed", p.Changes.Removed, removed},
		{"modified", p.Changes.Modified, modified},
	} {
		slices.Sort(c.want)
		if got := files(c.kind, c.got); !slices.Equal(got, c.want) {
			t.Errorf("%s: dispatched %d files, git says %d (first dispatched %v)", c.kind, len(got), len(c.want), head(got))
		}
	}
	for _, d := range []string{"new", "new/n00", "new/n08"} {
		if !slices.Contains(p.Changes.Added, d) {
			t.Errorf("new folder %s is not listed as added", d)
		}
	}
	if !slices.Contains(p.Changes.Removed, "src/d10") {
		t.Errorf("removed folder src/d10 is not listed as removed")
	}
	h.quiet()
}

func head(s []string) []string {
	if len(s) > 5 {
		return s[:5]
	}
	return s
}
