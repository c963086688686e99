package home

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestRefuseFolder(t *testing.T) {
	base := t.TempDir()
	h := Home{Dir: filepath.Join(base, "user", ".config", "tend")}
	if err := os.MkdirAll(filepath.Join(h.Dir, "watchers"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(h.Dir, filepath.Join(base, "link-to-home")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		folder, want string
	}{
		{"/", "root of the file system"},
		{h.Dir, "tend's own folder"},
		{h.Dir + "/", "tend's own folder"},
		{filepath.Join(h.Dir, "watchers"), "inside tend's own folder"},
		{filepath.Join(base, "link-to-home"), "tend's own folder"},
		{filepath.Join(base, "link-to-home", "watchers"), "inside tend's own folder"},
		{filepath.Join(base, "user"), ""},
		{filepath.Join(base, "user", ".config"), ""},
		{filepath.Join(base, "elsewhere"), ""},
	}
	for _, c := range cases {
		err := h.RefuseFolder(c.folder)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.folder, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want a refusal saying %q", c.folder, err, c.want)
		}
	}
}

func TestOwnPathsInsideAFolder(t *testing.T) {
	base := t.TempDir()
	h := Home{Dir: filepath.Join(base, "user", ".config", "tend")}
	if err := os.MkdirAll(h.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := h.Own(filepath.Join(base, "user")); !reflect.DeepEqual(got, []string{".config/tend"}) {
		t.Errorf("Own(~) = %q, want [.config/tend]", got)
	}
	if err := os.Symlink(filepath.Join(base, "user"), filepath.Join(base, "me")); err != nil {
		t.Fatal(err)
	}
	if got := h.Own(filepath.Join(base, "me")); !reflect.DeepEqual(got, []string{".config/tend"}) {
		t.Errorf("Own through a link = %q, want [.config/tend]", got)
	}
	if got := h.Own(filepath.Join(base, "elsewhere")); len(got) != 0 {
		t.Errorf("Own of an unrelated folder = %q, want none", got)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("no executable path:", err)
	}
	exe, _ = filepath.EvalSymlinks(exe)
	got := h.Own(filepath.Dir(exe))
	if want := filepath.Base(exe); !contains(got, want) {
		t.Errorf("Own of the program's folder = %q, want it to name %s", got, want)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
