package packaging

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// writeIfChanged writes data to path atomically unless the file already
// holds exactly data. It reports whether it wrote and whether the file
// existed before.
func writeIfChanged(path string, data []byte) (changed, existed bool, err error) {
	old, err := os.ReadFile(path)
	switch {
	case err == nil:
		if bytes.Equal(old, data) {
			return false, true, nil
		}
		existed = true
	case errors.Is(err, fs.ErrNotExist):
	default:
		return false, false, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := writeAtomic(path, data, 0o644); err != nil {
		return false, existed, err
	}
	return true, existed, nil
}

// writePrivateIfChanged is writeIfChanged for a file only its owner may
// read (mode 0600).
func writePrivateIfChanged(path string, data []byte) (bool, error) {
	old, err := os.ReadFile(path)
	if err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := writeAtomic(path, data, 0o600); err != nil {
		return false, err
	}
	return true, nil
}

// writeAtomic writes data to a temporary file beside path, syncs it and
// renames it over path, so readers see the old or the new file, never half.
func writeAtomic(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replacing %s: %w", path, err)
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: make the rename durable
		d.Close()
	}
	return nil
}

// removeFile removes path and reports whether it was there.
func removeFile(path string) (bool, error) {
	err := os.Remove(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("removing %s: %w", path, err)
}

// pruneEmptyDirs removes dir and its parents while they are empty, stopping
// at (and never removing) stop. It undoes the folders an install created.
func pruneEmptyDirs(dir, stop string) {
	stop = filepath.Clean(stop)
	for d := filepath.Clean(dir); strings.HasPrefix(d, stop+string(filepath.Separator)); d = filepath.Dir(d) {
		if os.Remove(d) != nil { // not empty, or gone: stop here
			return
		}
	}
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("checking %s: %w", path, err)
}
