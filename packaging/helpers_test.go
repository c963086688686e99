package packaging

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// reply is a canned answer of the recording runner.
type reply struct {
	out string
	err error
}

// recorder records every command and answers from a table; commands not in
// the table succeed with no output unless failAll is set.
type recorder struct {
	calls   []string
	replies map[string]reply
	failAll *reply
}

func (r *recorder) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	cmd := name + " " + strings.Join(args, " ")
	r.calls = append(r.calls, cmd)
	if rep, ok := r.replies[cmd]; ok {
		return []byte(rep.out), rep.err
	}
	if r.failAll != nil {
		return []byte(r.failAll.out), r.failAll.err
	}
	return nil, nil
}

func found(string) (string, error) { return "/usr/bin/found", nil }

func missing(string) (string, error) { return "", exec.ErrNotFound }

var errExit = errors.New("exit status 1")

// fakeBinary makes an executable file in dir and a symlink to it, and
// returns (symlink, real path).
func fakeBinary(t *testing.T, dir, name string) (link, real string) {
	t.Helper()
	binDir := filepath.Join(dir, "real bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	real = filepath.Join(binDir, name)
	if err := os.WriteFile(real, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	link = filepath.Join(dir, name+"-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	return link, real
}

// snapshot lists every path under root with its type and content, so two
// snapshots compare equal only if nothing was added, removed or changed.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[rel] = "link:" + target
		case d.IsDir():
			m[rel] = "dir"
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = "file:" + string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func diffSnapshots(before, after map[string]string) []string {
	var d []string
	for k, v := range after {
		if bv, ok := before[k]; !ok {
			d = append(d, "added "+k)
		} else if bv != v {
			d = append(d, "changed "+k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			d = append(d, "removed "+k)
		}
	}
	return d
}

// fakeTendHome fills a TEND_HOME with watchers and history.
func fakeTendHome(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"watchers/5f1c.json":  `{"id":"5f1c","name":"invoices"}`,
		"sessions/5f1c.jsonl": `{"run":1}` + "\n",
		"state/5f1c.json":     `{"phase":"idle"}`,
		"runs/5f1c/r1/ledger": "moved a b\n",
		"tend.token":          "secret",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func equalCalls(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}
