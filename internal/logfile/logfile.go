// Package logfile is the daemon's own log file, TEND_HOME/tend.log, kept
// small by rotation: when a write would take it past its limit, tend.log
// becomes tend.log.1 (replacing the older one) and a new tend.log starts.
// So the log never takes more than about twice the limit on disk, and
// `tend logs` finds it in the same place under any service manager.
package logfile

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// DefaultMaxBytes is the size at which tend.log is rotated.
const DefaultMaxBytes = 4 << 20

// Writer appends to a rotating log file. It is safe for concurrent use.
// A failing disk never fails the caller: the daemon must run on when its
// log cannot be written, so errors go to Errors once and are dropped.
type Writer struct {
	path   string
	max    int64
	errOut io.Writer

	mu     sync.Mutex
	f      *os.File
	size   int64
	failed bool
}

// Open opens (or creates, mode 0600) the log at path, rotating at max
// bytes; errOut hears about the first write error (nil: nowhere).
func Open(path string, max int64, errOut io.Writer) (*Writer, error) {
	if max <= 0 {
		return nil, fmt.Errorf("log size limit %d is not positive", max)
	}
	w := &Writer{path: path, max: max, errOut: errOut}
	if err := w.open(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Writer) open() error {
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening the log file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("opening the log file: %w", err)
	}
	w.f, w.size = f, fi.Size()
	return nil
}

// Write appends p, rotating first when p would not fit.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f != nil && w.size > 0 && w.size+int64(len(p)) > w.max {
		w.f.Close()
		w.f = nil
		if err := os.Rename(w.path, w.path+".1"); err != nil {
			w.fail(err)
		}
		if err := w.open(); err != nil {
			w.fail(err)
		}
	}
	if w.f == nil {
		if err := w.open(); err != nil {
			w.fail(err)
			return len(p), nil
		}
	}
	n, err := w.f.Write(p)
	w.size += int64(n)
	if err != nil {
		w.fail(err)
	}
	return len(p), nil
}

func (w *Writer) fail(err error) {
	if !w.failed && w.errOut != nil {
		fmt.Fprintf(w.errOut, "tend: cannot write the log file %s (%v); logging to standard error only\n", w.path, err)
	}
	w.failed = true
}

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}
