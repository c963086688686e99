package tail

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/tend-agent/tend/internal/beneath"
)

// Limits on what is kept in memory.
const (
	MaxLine   = 64 << 10 // a longer line is cut and handled as a line of this size
	keptLine  = 4 << 10  // a line kept in LastLines is cut to this size
	readChunk = 64 << 10
	primeSize = 256 << 10 // how much of an existing file is read back to fill LastLines
)

// Follower follows one file. It is safe for concurrent use, but Poll calls
// are serialised.
type Follower struct {
	mu  sync.Mutex
	cfg Config

	started    bool
	f          *os.File
	fi         os.FileInfo // of f, taken when it was opened
	offset     int64       // next byte of f to read
	partial    []byte      // bytes after the last newline
	last       ring
	lastGrowth time.Time
	silenced   bool // a silence verdict was given for the current quiet period
	linkSeen   bool // a link in the file's place was reported
}

// New returns a Follower for cfg. Nothing is opened until the first Poll,
// which starts at the current end of an existing file (its last lines fill
// LastLines but are not matched) or waits for a missing one.
func New(cfg Config) (*Follower, error) {
	if err := ValidateConfig(cfg); err != nil {
		return nil, err
	}
	n := cfg.Lines
	if n == 0 {
		n = DefaultLines
	}
	return &Follower{cfg: cfg, last: ring{max: n}}, nil
}

// Close releases the open file, if any.
func (t *Follower) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closeFile()
}

func (t *Follower) closeFile() error {
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f, t.fi = nil, nil
	return err
}

// Poll reads what was appended since the last call and returns at most one
// verdict: fail if any new complete line matched the fail pattern (checked
// first on every line), else ok if any matched the ok pattern, else silence
// once the file has not grown for Silence since its last growth (once per
// quiet period; growth re-arms it). It returns nil when there is nothing to
// report, including while the file does not exist.
func (t *Follower) Poll(now time.Time) (*Verdict, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.started {
		t.started = true
		t.lastGrowth = now
		if err := t.openInitial(); err != nil {
			return nil, err
		}
		return nil, nil
	}
	var s scan
	if err := t.follow(&s); err != nil {
		return nil, err
	}
	if s.grew {
		t.lastGrowth = now
		t.silenced = false
	}
	if v := s.verdict(t.cfg.Path); v != nil {
		v.LastLines = t.last.lines()
		return v, nil
	}
	if t.cfg.Silence > 0 && !t.silenced && now.Sub(t.lastGrowth) >= t.cfg.Silence {
		t.silenced = true
		return &Verdict{
			Kind:      Silence,
			Reason:    fmt.Sprintf("%s has not grown for %s (since %s)", t.cfg.Path, t.cfg.Silence, t.lastGrowth.Format(time.RFC3339)),
			LastLines: t.last.lines(),
		}, nil
	}
	return nil, nil
}

// openInitial opens an existing file at its end and reads its last lines
// back into the ring without matching them.
func (t *Follower) openInitial() error {
	f, fi, err := t.open()
	if err != nil || f == nil {
		return err
	}
	t.f, t.fi = f, fi
	size := fi.Size()
	start := max(size-primeSize, 0)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading tail file %s: %w", t.cfg.Path, err)
	}
	if start > 0 { // the first line read back is probably cut: drop it
		if i := indexNL(buf); i >= 0 {
			buf = buf[i+1:]
		}
	}
	var s scan
	t.feed(buf, &s, false)
	t.offset = size
	return nil
}

// open opens the path; a missing file gives (nil, nil, nil). With a Root,
// a symbolic link in the way counts as missing (reported once): the model
// may have put it there to lead the tail out of the folder.
func (t *Follower) open() (*os.File, os.FileInfo, error) {
	var f *os.File
	var err error
	if t.cfg.Root != "" {
		f, err = beneath.Open(t.cfg.Root, t.cfg.Path)
	} else {
		f, err = os.Open(t.cfg.Path)
	}
	if errors.Is(err, beneath.ErrLink) {
		if t.linkSeen {
			return nil, nil, nil
		}
		t.linkSeen = true
		return nil, nil, fmt.Errorf("tail file %s is a symbolic link (or is reached through one): tend follows only a regular file inside the folder, never a link, and waits for one", t.cfg.Path)
	}
	t.linkSeen = false
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("opening tail file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("opening tail file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("tail file %s is not a regular file", t.cfg.Path)
	}
	return f, fi, nil
}

// follow drains the open file, then handles rotation and truncation.
func (t *Follower) follow(s *scan) error {
	if t.f != nil {
		if err := t.drain(s); err != nil {
			return err
		}
	}
	fi, err := t.stat()
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, beneath.ErrLink):
		// Deleted or renamed away and not yet replaced: keep the old file
		// open, its writer may still be appending to it.
		return nil
	case err != nil:
		return fmt.Errorf("checking tail file: %w", err)
	}
	if t.f != nil && sameFile(t.fi, fi) {
		if fi.Size() < t.offset { // truncated: start again from 0
			t.flushPartial(s)
			t.offset = 0
			return t.drain(s)
		}
		return nil
	}
	// Rotated (a different file at the path) or appeared: the old file is
	// finished, the new one is read from its start.
	t.flushPartial(s)
	if err := t.closeFile(); err != nil {
		return fmt.Errorf("closing rotated tail file: %w", err)
	}
	f, nfi, err := t.open()
	if err != nil || f == nil {
		return err
	}
	t.f, t.fi, t.offset = f, nfi, 0
	return t.drain(s)
}

// stat describes what is at the path now, opened the way open does.
func (t *Follower) stat() (os.FileInfo, error) {
	if t.cfg.Root == "" {
		return os.Stat(t.cfg.Path)
	}
	f, err := beneath.Open(t.cfg.Root, t.cfg.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}

// drain reads the open file from offset to its end.
func (t *Follower) drain(s *scan) error {
	buf := make([]byte, readChunk)
	for {
		n, err := t.f.ReadAt(buf, t.offset)
		if n > 0 {
			t.offset += int64(n)
			s.grew = true
			t.feed(buf[:n], s, true)
		}
		if errors.Is(err, io.EOF) || n == 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading tail file %s: %w", t.cfg.Path, err)
		}
	}
}

// feed splits b into lines, keeping an unfinished last line for later.
func (t *Follower) feed(b []byte, s *scan, match bool) {
	for len(b) > 0 {
		i := indexNL(b)
		if i < 0 {
			t.partial = append(t.partial, b...)
			for len(t.partial) >= MaxLine {
				t.line(string(t.partial[:MaxLine]), s, match)
				t.partial = append(t.partial[:0], t.partial[MaxLine:]...)
			}
			return
		}
		var line string
		if len(t.partial) > 0 {
			line = string(append(t.partial, b[:i]...))
			t.partial = t.partial[:0]
		} else {
			line = string(b[:i])
		}
		b = b[i+1:]
		if len(line) > MaxLine {
			line = line[:MaxLine]
		}
		t.line(line, s, match)
	}
}

// flushPartial ends an unfinished last line: the file it came from is done.
func (t *Follower) flushPartial(s *scan) {
	if len(t.partial) > 0 {
		t.line(string(t.partial), s, true)
		t.partial = t.partial[:0]
	}
}

func (t *Follower) line(line string, s *scan, match bool) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	t.last.add(line)
	if !match {
		return
	}
	switch {
	case t.cfg.Fail != nil && t.cfg.Fail.MatchString(line):
		if s.fails == 0 {
			s.firstFail = line
		}
		s.fails++
	case t.cfg.OK != nil && t.cfg.OK.MatchString(line):
		s.lastOK = line
		s.oks++
	}
}

func indexNL(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}
