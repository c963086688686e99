package watchers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tend-agent/tend/internal/atomicfile"
)

// Store is the folder of watcher definitions, one pretty JSON file each.
type Store struct {
	Dir string
}

// FileError names a definition file that could not be used. The file is
// left exactly as it is.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("skipping %s: %v (fix or remove the file; tend will not change it)", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// ErrNotFound is returned when no watcher has the given name or id.
var ErrNotFound = errors.New("no such watcher")

// FilePath is where the definition with this id lives.
func (s *Store) FilePath(id string) string { return filepath.Join(s.Dir, id+".json") }

// LoadAll reads every *.json file. Files that fail to parse or validate
// are reported in errs and skipped; so is a second watcher with a name
// already taken.
func (s *Store) LoadAll() (defs []*Definition, errs []error) {
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, []error{fmt.Errorf("reading watcher folder %s: %w", s.Dir, err)}
	}
	names := map[string]string{}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(s.Dir, e.Name())
		d, err := LoadFile(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if other, dup := names[d.Name]; dup {
			errs = append(errs, &FileError{p, fmt.Errorf("name %q is already used by %s", d.Name, other)})
			continue
		}
		names[d.Name] = p
		defs = append(defs, d)
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
	return defs, errs
}

// MaxFileBytes bounds a definition file. A real one is a few KiB; the
// cap keeps a runaway or hostile file from taking the daemon's memory
// (every definition is held, and re-read on every change of the folder).
const MaxFileBytes = 256 << 10

// LoadFile reads and validates one definition file. A file over
// MaxFileBytes is refused unread.
func LoadFile(p string) (*Definition, error) {
	data, err := readCapped(p)
	if err != nil {
		return nil, &FileError{p, err}
	}
	var d Definition
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&d); err != nil {
		return nil, &FileError{p, fmt.Errorf("invalid JSON: %w", err)}
	}
	d.ApplyDefaults()
	want := strings.TrimSuffix(filepath.Base(p), ".json")
	if d.ID == "" {
		d.ID = want
	}
	if d.ID != want {
		return nil, &FileError{p, fmt.Errorf("id %q does not match the file name (expected %q)", d.ID, want)}
	}
	if err := d.Validate(); err != nil {
		return nil, &FileError{p, err}
	}
	return &d, nil
}

func readCapped(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if fi.Size() > MaxFileBytes {
		return nil, tooLarge(fi.Size())
	}
	// The size may grow between Stat and the read: read one byte past the cap.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, tooLarge(int64(len(data)))
	}
	return data, nil
}

func tooLarge(n int64) error {
	return fmt.Errorf("the file is %d KiB, over the limit of %d KiB for a watcher definition (are the instructions pasted in? keep them under %d KiB)",
		(n+1023)/1024, MaxFileBytes>>10, MaxInstructionsBytes>>10)
}

// Save writes a definition atomically.
func (s *Store) Save(d *Definition) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", s.Dir, err)
	}
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding watcher %s: %w", d.Name, err)
	}
	data = append(data, '\n')
	if len(data) > MaxFileBytes {
		return fmt.Errorf("saving watcher %s: %w", d.Name, tooLarge(int64(len(data))))
	}
	if err := atomicfile.WriteFile(s.FilePath(d.ID), data, 0o600); err != nil {
		return fmt.Errorf("saving watcher %s: %w", d.Name, err)
	}
	return nil
}

// Remove deletes the definition file of id.
func (s *Store) Remove(id string) error {
	if err := os.Remove(s.FilePath(id)); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("removing watcher %s: %w", id, err)
	}
	return nil
}

// Find picks the definition named ref, by name or by id (or a unique id
// prefix of at least 4 characters).
func Find(defs []*Definition, ref string) (*Definition, error) {
	var prefix []*Definition
	for _, d := range defs {
		if d.Name == ref || d.ID == ref {
			return d, nil
		}
		if len(ref) >= 4 && strings.HasPrefix(d.ID, ref) {
			prefix = append(prefix, d)
		}
	}
	if len(prefix) == 1 {
		return prefix[0], nil
	}
	return nil, fmt.Errorf("%w %q: see `tend list`", ErrNotFound, ref)
}
