package tail

import (
	"fmt"
	"unicode/utf8"
)

// scan collects what one Poll saw.
type scan struct {
	grew      bool
	fails     int
	firstFail string
	oks       int
	lastOK    string
}

func (s *scan) verdict(path string) *Verdict {
	switch {
	case s.fails > 0:
		return &Verdict{Kind: Fail, Line: s.firstFail, Matches: s.fails,
			Reason: fmt.Sprintf("the fail pattern matched %d new line(s) of %s", s.fails, path)}
	case s.oks > 0:
		return &Verdict{Kind: OK, Line: s.lastOK, Matches: s.oks,
			Reason: fmt.Sprintf("the ok pattern matched %d new line(s) of %s", s.oks, path)}
	}
	return nil
}

// ring keeps the last max lines.
type ring struct {
	max  int
	buf  []string
	next int
}

func (r *ring) add(line string) {
	if len(line) > keptLine {
		cut := keptLine
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut] + " [line cut]"
	}
	if len(r.buf) < r.max {
		r.buf = append(r.buf, line)
		return
	}
	r.buf[r.next] = line
	r.next = (r.next + 1) % r.max
}

// lines returns a copy, oldest first.
func (r *ring) lines() []string {
	out := make([]string, 0, len(r.buf))
	out = append(out, r.buf[r.next:]...)
	return append(out, r.buf[:r.next]...)
}
