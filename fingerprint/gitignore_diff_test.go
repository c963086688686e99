package fingerprint

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The differential test against git: random small trees and random
// pattern sets, written as .gitignore in a real repository and as
// .tendignore; for every file, tend leaves it out exactly when
// `git ls-files --others --ignored --exclude-standard` lists it.
//
// TEND_GITIGNORE_CASES sets the number of cases (default 200) and
// TEND_GITIGNORE_SEED the first seed, to reproduce a reported failure.

func gitIgnoreCases(t *testing.T) (n int, seed uint64) {
	n, seed = 200, 1
	if s := os.Getenv("TEND_GITIGNORE_CASES"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("TEND_GITIGNORE_CASES=%q: want a positive number of cases", s)
		}
		n = v
	}
	if s := os.Getenv("TEND_GITIGNORE_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("TEND_GITIGNORE_SEED=%q: want a number", s)
		}
		seed = v
	}
	return n, seed
}

// gitEnv keeps the user's and the system's git configuration (and their
// global excludes file) out of the comparison.
func gitEnv(home string) []string {
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}
	if p, ok := os.LookupEnv("PATH"); ok {
		env = append(env, "PATH="+p)
	}
	return env
}

// gitIgnored lists, relative to root, the files git ignores.
func gitIgnored(t *testing.T, root, home string) map[string]bool {
	t.Helper()
	cmd := exec.Command("git", "-c", "core.quotePath=false", "ls-files", "--others", "--ignored", "--exclude-standard", "-z")
	cmd.Dir, cmd.Env = root, gitEnv(home)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v\n%s", err, errb.String())
	}
	got := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			got[p] = true
		}
	}
	return got
}

// Name pieces for random trees: plain names, names with the characters
// patterns treat specially, and a trailing space.
var diffNames = []string{"a", "b", "ab", "ba", "abc", "x.log", "a.txt", "!", "!a", "#c", "[a]", "a*", "b?", "c d", "d ", `\e`, "-", "]", ".h", "A", "1", "a-b", "**", "l"}

// diffAtoms are pieces of a pattern segment besides the names.
var diffAtoms = []string{"*", "*", "?", "**", "[ab]", "[!a]", "[^a]", "[a-c]", "[]a]", "[!]]", "[[:alpha:]]", "[[:digit:]x]", "[a-]", `[\!]`, `\*`, `\!`, `\[`, `\`, "[", "[!", "[[:nope:]]", "[[:alpha]", "[z-a]", ".", "-"}

func randTree(r *rand.Rand) []string {
	var files []string
	taken := map[string]bool{} // path → is a file
	n := 3 + r.IntN(10)
	for range n {
		depth := 1 + r.IntN(3)
		var segs []string
		ok := true
		for d := range depth {
			segs = append(segs, diffNames[r.IntN(len(diffNames))])
			p := strings.Join(segs, "/")
			isFile := d == depth-1
			if prev, seen := taken[p]; seen && (prev || isFile) {
				ok = false // a file where a folder is wanted, or the same file twice
				break
			}
			taken[p] = isFile
		}
		if ok {
			files = append(files, strings.Join(segs, "/"))
		}
	}
	return files
}

func randSegment(r *rand.Rand, files []string) string {
	if r.IntN(6) == 0 {
		return "**"
	}
	var b strings.Builder
	for range 1 + r.IntN(3) {
		switch k := r.IntN(10); {
		case k < 5:
			name := diffNames[r.IntN(len(diffNames))]
			if len(files) > 0 && r.IntN(2) == 0 {
				f := strings.Split(files[r.IntN(len(files))], "/")
				name = f[r.IntN(len(f))]
			}
			if r.IntN(4) == 0 { // escape the special characters
				var e strings.Builder
				for i := 0; i < len(name); i++ {
					if strings.IndexByte(`*?[\!# `, name[i]) >= 0 {
						e.WriteByte('\\')
					}
					e.WriteByte(name[i])
				}
				name = e.String()
			}
			b.WriteString(name)
		default:
			b.WriteString(diffAtoms[r.IntN(len(diffAtoms))])
		}
	}
	return b.String()
}

func randPattern(r *rand.Rand, files []string) string {
	var b strings.Builder
	switch r.IntN(12) {
	case 0, 1, 2:
		b.WriteString("!")
	case 3, 4:
		b.WriteString("/")
	case 5:
		b.WriteString("#")
	case 6:
		b.WriteString(`\!`)
	case 7:
		b.WriteString(`\#`)
	}
	if len(files) > 0 && r.IntN(2) == 0 {
		// A real path, so that deep anchored patterns match something.
		segs := strings.Split(files[r.IntN(len(files))], "/")
		segs = segs[:1+r.IntN(len(segs))]
		if r.IntN(2) == 0 {
			segs[r.IntN(len(segs))] = randSegment(r, nil)
		}
		b.WriteString(strings.Join(segs, "/"))
	} else {
		nseg := 1 + r.IntN(3)
		for i := range nseg {
			if i > 0 {
				b.WriteString("/")
			}
			b.WriteString(randSegment(r, files))
		}
	}
	switch r.IntN(12) {
	case 0, 1, 2:
		b.WriteString("/")
	case 3:
		b.WriteString("  ")
	case 4:
		b.WriteString(`\ `)
	case 5:
		b.WriteString("\t")
	case 6:
		b.WriteString("\r")
	case 7:
		b.WriteString("//")
	}
	return b.String()
}

// gitCase is one tree and the patterns of its ignore file.
type gitCase struct {
	what     string
	files    []string
	links    []string // symbolic links to their own folder: never folders to git nor to tend
	patterns string
}

// randLink picks a place for a symbolic link named "l" in a folder of the
// tree, or "" when that name is taken there.
func randLink(r *rand.Rand, files []string) string {
	dir := ""
	if f := files[r.IntN(len(files))]; strings.Contains(f, "/") {
		dir = f[:strings.LastIndexByte(f, '/')+1]
	}
	for _, f := range files {
		if f == dir+"l" || strings.HasPrefix(f, dir+"l/") {
			return ""
		}
	}
	return dir + "l"
}

func TestIgnoreMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the differential test against git needs it")
	}
	n, seed := gitIgnoreCases(t)
	var cases []gitCase
	for i := range n {
		s := seed + uint64(i)
		r := rand.New(rand.NewPCG(s, 0x7e4d))
		files := randTree(r)
		var links []string
		if r.IntN(3) == 0 {
			if l := randLink(r, files); l != "" {
				links = append(links, l)
			}
		}
		var lines []string
		for range 1 + r.IntN(5) {
			lines = append(lines, randPattern(r, append(files, links...)))
		}
		cases = append(cases, gitCase{fmt.Sprintf("seed %d (rerun it alone with TEND_GITIGNORE_SEED=%d TEND_GITIGNORE_CASES=1)", s, s), files, links, strings.Join(lines, "\n") + "\n"})
	}
	compareWithGit(t, cases)
}

// Cases the random search found, kept so they are checked on every run.
func TestIgnoreMatchesGitKnownCases(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the differential test against git needs it")
	}
	files := []string{"a", "b", "!", "ab", "a-b", "[a]", "c d", "d ", `\e`, "x/a", "x/b/c", "x/y/b/c", "foo/bar", "foo/x/bar", "foobar/bar", "A", "1", "-"}
	var cases []gitCase
	for _, c := range []string{
		"[!a]\n",            // any one character but a (tend read "!" or "a")
		"[^a]\n",            // the same
		"[]a]\n",            // "]" first in a class is a member
		"[a-]\n",            // "-" last in a class is a member
		"[[:alpha:]]\n",     // POSIX classes
		"[[:punct:]]\n",     //
		"x/*\n!x/b/\n",      // negation brings a folder back
		"x/\n!x/a\n",        // nothing comes back from inside an ignored folder
		"**/c\n",            // "**/" at the start spans any folders, none included
		"x/**/c\n",          // and in the middle
		"foo**/bar\n",       // "**" right after a literal part: git lets it span folders
		"x/**\n",            // a trailing "**" is everything inside, not the folder
		"/a\n",              // anchored to the root
		"a/\n",              // folders only
		`\!` + "\n",         // an escaped "!" is literal
		"d \n",              // trailing spaces go
		`d\ ` + "\n",        // unless escaped
		"d\t\n",             // tabs stay
		"#c\n\\#c\n",        // a comment, then an escaped "#"
		"a//\n",             // two trailing slashes
		"a\r\nb\r\n",        // CRLF line ends
		"[a\n",              // an unclosed class matches nothing
		"a\\\n",             // a lone trailing backslash
		"*\n!*/\n!*/*\n",    // re-include by depth
		"**\n",              // everything
		"x/*/c\n",           // one "*" is one folder
		"**/b/\n!**/y/**\n", //
		"l/\nx/l/\n",        // a link to a folder is no folder
		"l\n",               // but matches as a name
	} {
		cases = append(cases, gitCase{fmt.Sprintf("patterns %q", c), files, []string{"x/l"}, c})
	}
	compareWithGit(t, cases)
}

// compareWithGit puts each case in a folder of its own in one repository,
// with the patterns as that folder's .gitignore (git reads them relative
// to it, as tend reads a .tendignore relative to the watched folder), asks
// git once what it ignores, and compares tend's verdict on every file,
// fingerprinting each case's folder with the patterns as .tendignore.
func compareWithGit(t *testing.T, cases []gitCase) {
	t.Helper()
	home, repo := t.TempDir(), t.TempDir()
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir, cmd.Env = repo, gitEnv(home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for i, c := range cases {
		root := filepath.Join(repo, fmt.Sprintf("c%04d", i))
		write(t, root, c.files...)
		for _, l := range c.links {
			if err := os.Symlink(".", filepath.Join(root, filepath.FromSlash(l))); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range []string{".gitignore", TendIgnoreFile} {
			if err := os.WriteFile(filepath.Join(root, name), []byte(c.patterns), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	ignored := gitIgnored(t, repo, home)
	// A comparison where git ignores none of the files (or all of them)
	// proves little: the patterns must have reached git.
	total, nIgnored := 0, 0
	for i, c := range cases {
		for _, f := range append(c.files, c.links...) {
			total++
			if ignored[fmt.Sprintf("c%04d/%s", i, f)] {
				nIgnored++
			}
		}
	}
	if nIgnored == 0 || nIgnored == total {
		t.Fatalf("git ignores %d of the %d files: the comparison would prove nothing", nIgnored, total)
	}
	t.Logf("%d cases: git ignores %d of %d files", len(cases), nIgnored, total)
	failed := 0
	for i, c := range cases {
		dir := fmt.Sprintf("c%04d", i)
		tr, err := Build(context.Background(), filepath.Join(repo, dir), Options{IncludeHidden: true})
		if err != nil {
			t.Fatalf("%s: Build: %v", c.what, err)
		}
		var wrong []string
		for _, f := range append(c.files, c.links...) {
			git := ignored[dir+"/"+f]
			if _, inTree := tr.Lookup(f); inTree == git {
				wrong = append(wrong, fmt.Sprintf("%q: git ignores it: %v, tend: %v", f, git, !inTree))
			}
			if tr.Ignored(f, false) != git {
				wrong = append(wrong, fmt.Sprintf("%q: Ignored says %v, git %v", f, !git, git))
			}
		}
		if len(wrong) > 0 {
			slices.Sort(wrong)
			t.Errorf("%s: tend and git disagree\npatterns:\n%s\nfiles: %q, links: %q\n%s", c.what, indent(c.patterns), c.files, c.links, strings.Join(wrong, "\n"))
			if failed++; failed == 5 {
				t.Fatal("stopping after 5 failing cases")
			}
		}
	}
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			fmt.Fprintf(&b, "    %q\n", l)
		}
	}
	return b.String()
}
