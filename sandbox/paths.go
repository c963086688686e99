//go:build unix

package sandbox

import (
	"path"
	"path/filepath"
	"strings"
)

// cleanPath turns a path given by the model into a slash-separated path
// relative to the watched folder ("" is the folder itself). roots are the
// accepted absolute spellings of the folder (the resolved one first). It only
// rejects what is lexically outside; links are checked by the kernel when the
// path is opened.
func cleanPath(roots []string, p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", toolErrf("path %q contains a NUL character", p)
	}
	p = strings.TrimSpace(p)
	if p == "" || p == "." || p == "./" {
		return "", nil
	}
	if path.IsAbs(p) || filepath.IsAbs(p) {
		c := path.Clean(filepath.ToSlash(p))
		for _, r := range roots {
			if c == r {
				return "", nil
			}
			if strings.HasPrefix(c, strings.TrimSuffix(r, "/")+"/") {
				return strings.TrimPrefix(c, strings.TrimSuffix(r, "/")+"/"), nil
			}
		}
		if c == "/workspace" || strings.HasPrefix(c, "/workspace/") {
			return "", toolErrf("path %q: this is host-folder mode: paths are relative to the watched folder, there is no /workspace", p)
		}
		return "", toolErrf("path %q is outside the watched folder; use a path relative to it", p)
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		return "", toolErrf("path %q: \"~\" is not expanded here; paths are relative to the watched folder", p)
	}
	c := path.Clean(filepath.ToSlash(p))
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", toolErrf("path %q is outside the watched folder; use a path relative to it", p)
	}
	if c == "." {
		return "", nil
	}
	return c, nil
}

// splitRel splits a relative path into its parent ("" for the folder) and
// its last name.
func splitRel(rel string) (parent, base string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return "", rel
	}
	return rel[:i], rel[i+1:]
}

// joinRel joins relative path parts, treating "" as the folder itself.
func joinRel(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "/" + b
}

// within reports whether p is q or lies below q.
func within(p, q string) bool {
	if q == "" {
		return true
	}
	return p == q || strings.HasPrefix(p, q+"/")
}
