package fingerprint

import (
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.txt", "d/b.txt", "d/e/", "skip.log", "locked/x", "Projects/p")
	if err := os.Symlink("a.txt", filepath.Join(root, "ln")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, TendIgnoreFile), []byte("*.tmp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{IncludeHidden: true, Ignore: []string{"*.log"}, Exclude: []string{"Projects"}}
	opts.openDirHook = func(rel string) error {
		if rel == "locked" {
			return fs.ErrPermission
		}
		return nil
	}
	tr := build(t, root, opts)
	file := filepath.Join(t.TempDir(), "state", "w.tree")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := tr.Save(file); err != nil {
		t.Fatal(err)
	}
	got, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if got.RootHash() != tr.RootHash() || got.Root() != tr.Root() {
		t.Errorf("loaded hash/root %x %s, saved %x %s", got.RootHash(), got.Root(), tr.RootHash(), tr.Root())
	}
	if !slices.Equal(paths(got), paths(tr)) || !Diff(tr, got).Empty() {
		t.Errorf("loaded entries differ: %+v", Diff(tr, got))
	}
	f1, d1 := got.Counts()
	f2, d2 := tr.Counts()
	if f1 != f2 || d1 != d2 {
		t.Errorf("loaded counts %d/%d, saved %d/%d", f1, d1, f2, d2)
	}
	if !reflect.DeepEqual(got.Options(), tr.Options()) || !reflect.DeepEqual(got.Skipped(), tr.Skipped()) {
		t.Errorf("options or skips differ: %+v %+v / %+v %+v", got.Options(), got.Skipped(), tr.Options(), tr.Skipped())
	}
	for _, p := range []string{"x.tmp", "y.log", "Projects/q", "a.txt"} {
		if got.Ignored(p, false) != tr.Ignored(p, false) {
			t.Errorf("Ignored(%q) differs after load", p)
		}
	}
	e1, _ := got.Lookup("d/b.txt")
	e2, _ := tr.Lookup("d/b.txt")
	if e1 != e2 {
		t.Errorf("Lookup after load %+v, before %+v", e1, e2)
	}
	// A loaded tree can be updated.
	write(t, root, "d/new.txt")
	up, err := got.Update("d/new.txt")
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(got, up); !slices.Equal(d.Added, []string{"d/new.txt"}) {
		t.Errorf("update of a loaded tree: %+v", d)
	}
	// No temporary files are left behind.
	if ents, _ := os.ReadDir(filepath.Dir(file)); len(ents) != 1 {
		t.Errorf("the state folder holds %d files, want just the tree", len(ents))
	}
}

func TestLoadRejectsBadFiles(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.txt", "d/b.txt")
	good := filepath.Join(t.TempDir(), "good.tree")
	if err := build(t, root, Options{}).Save(good); err != nil {
		t.Fatal(err)
	}
	valid, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	flipped := slices.Clone(valid)
	flipped[len(flipped)/2] ^= 0xff
	cases := map[string][]byte{
		"empty":     {},
		"garbage":   []byte("this is not a fingerprint at all, just some text"),
		"truncated": valid[:len(valid)-5],
		"flipped":   flipped,
		"magic":     []byte(fileMagic + "\x01\x00\x00"),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), name+".tree")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), p) {
				t.Errorf("Load(%s) error = %v, want one naming the file", name, err)
			}
		})
	}
	if _, err := Load(filepath.Join(root, "missing.tree")); err == nil || !strings.Contains(err.Error(), "missing.tree") {
		t.Errorf("Load of a missing file: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	root := f.TempDir()
	for _, p := range []string{"a.txt", "d/b.txt", "d/e/f"} {
		full := filepath.Join(root, p)
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		_ = os.WriteFile(full, []byte(p), 0o644)
	}
	tr, err := Build(f.Context(), root, Options{Ignore: []string{"*.x"}})
	if err != nil {
		f.Fatal(err)
	}
	file := filepath.Join(f.TempDir(), "seed.tree")
	if err := tr.Save(file); err != nil {
		f.Fatal(err)
	}
	seed, _ := os.ReadFile(file)
	f.Add(seed)
	f.Add([]byte(fileMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		// Must never panic; the checksum rejects most inputs, so also try
		// the body with a correct checksum appended.
		_, _ = decode(data)
		if len(data) > 8 {
			_, _ = decode(withChecksum(data[:len(data)-8]))
		}
	})
}

// withChecksum appends the trailing checksum to a file body (used by tests
// to reach the parser past the checksum).
func withChecksum(body []byte) []byte {
	return binary.LittleEndian.AppendUint64(append([]byte(nil), body...), xxhash.Sum64(body))
}
