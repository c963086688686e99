package watchers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// LoadFile reads and validates one definition file.
func LoadFile(p string) (*Definition, error) {
	data, err := os.ReadFile(p)
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
