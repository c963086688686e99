package home

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The model is untrusted input: a watcher must never hand it tend's own
// files, or it could write a watcher definition or a check script that the
// daemon then runs. These two functions are the one place that says which
// folders may be watched and which paths inside them are tend's.

// RefuseFolder explains why folder cannot be watched, or returns nil: the
// file system root, TEND_HOME itself and any folder inside TEND_HOME are
// refused (a folder that merely holds TEND_HOME is watched with TEND_HOME
// left out, see Own).
func (h Home) RefuseFolder(folder string) error {
	if folder == "" {
		return nil
	}
	f := resolved(folder)
	if f == string(filepath.Separator) || filepath.Dir(f) == f {
		return fmt.Errorf("%s is the root of the file system: a watcher there would hand the model every file of the machine; watch a smaller folder", folder)
	}
	home := resolved(h.Dir)
	if f == home {
		return fmt.Errorf("%s is tend's own folder (TEND_HOME): it holds the watcher definitions and check scripts, which the model must never write; watch another folder", folder)
	}
	if _, ok := below(home, f); ok {
		return fmt.Errorf("%s is inside tend's own folder (TEND_HOME %s), which holds the watcher definitions and check scripts the model must never write; watch a folder outside it", folder, h.Dir)
	}
	return nil
}

// Own returns tend's own paths inside folder, as slash paths relative to
// it with symlinks resolved on both sides: TEND_HOME and the tend program.
// The watcher's fingerprint, events and prompts leave them out, and the
// tools refuse them (sandbox.Options.Deny).
func (h Home) Own(folder string) []string {
	if folder == "" {
		return nil
	}
	f := resolved(folder)
	var out []string
	add := func(p string) {
		if rel, ok := below(f, resolved(p)); ok {
			for _, o := range out {
				if o == rel {
					return
				}
			}
			out = append(out, rel)
		}
	}
	add(h.Dir)
	if exe, err := os.Executable(); err == nil {
		add(exe)
	}
	return out
}

// resolved is p made absolute and clean, with symlinks resolved as far as
// the path exists (TEND_HOME may not exist yet).
func resolved(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	var rest []string
	for cur := abs; ; cur = filepath.Dir(cur) {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		if filepath.Dir(cur) == cur {
			return abs
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
	}
}

// below reports whether child lies strictly below parent, and its
// relative slash path.
func below(parent, child string) (string, bool) {
	rel, err := filepath.Rel(parent, child)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
