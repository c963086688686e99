// Package schedule parses and evaluates watcher schedules.
//
// The grammar (case-insensitive, words separated by spaces):
//
//	every 5m                          an interval, counted from the END of the last run
//	every 10m weekdays 09:00-18:00    an interval restricted to days and a daily window
//	daily 09:00                       times of day (several: daily 09:00,17:30)
//	daily 09:00 mon,thu               ... on some days
//	hourly :15,:45                    minutes past every hour (hourly alone means :00)
//
// Durations are Go durations plus d for days (90s, 5m, 2h, 1d, 1d12h), whole
// seconds, from 10s to 30d. Day sets are comma lists of mon..sun, ranges such
// as mon-fri (fri-mon wraps), weekdays and weekends. A window is HH:MM-HH:MM,
// end excluded; an end at or before the start crosses midnight and belongs to
// the day it opens on; 24:00 is accepted as an end.
//
// Wall-clock schedules (daily, hourly, windows and day sets) are evaluated in
// the location passed to Next and stay right across DST changes: a wall time
// that does not exist on a spring-forward day (02:30) is due at the first
// instant after the gap; a wall time that happens twice on a fall-back day is
// due once, at its first occurrence. Hourly minutes are checked against every
// real hour, so the repeated hour of a fall-back night has its runs too.
// Plain intervals are elapsed time: "every 1d" is 24 hours, not "same time
// tomorrow" (use daily for that).
//
// Missed runs are never made up. The caller keeps the end time of the last
// run (zero before the first) and the time the schedule was set (setAt, for
// the first run of a daily or hourly schedule; see Anchor) and, whenever it
// wakes (timer, file event, restart, resume from sleep), does:
//
//	next := s.Next(s.Anchor(lastRunEnd, setAt), now, loc)
//	if !now.Before(next) {
//		// run once, then lastRunEnd = the moment that run ended
//	} else {
//		// sleep until next, then ask again (timers drift across suspend)
//	}
//
// Next returns now itself when a run is due (whatever was missed), so after a
// long sleep exactly one run follows; the next due time is then computed from
// that run's end.
package schedule

import (
	"fmt"
	"strings"
	"time"
)

// Interval limits.
const (
	MinInterval = 10 * time.Second
	MaxInterval = 30 * 24 * time.Hour
)

type kind int

const (
	kindEvery kind = iota + 1
	kindDaily
	kindHourly
)

// Schedule is a parsed schedule. The zero value is not valid; use Parse.
type Schedule struct {
	kind      kind
	every     time.Duration
	days      daySet
	hasWindow bool
	winStart  int   // minutes after midnight
	winEnd    int   // minutes after midnight, 1..1440
	times     []int // daily: minutes after midnight; hourly: minutes past the hour; sorted, unique
}

// IsInterval reports whether the schedule is an interval counted from the
// end of the last run ("every ...").
func (s *Schedule) IsInterval() bool { return s != nil && s.kind == kindEvery }

// Interval is the length of an interval schedule, 0 for the others.
func (s *Schedule) Interval() time.Duration {
	if !s.IsInterval() {
		return 0
	}
	return s.every
}

// String is the canonical spelling; Parse(s.String()) gives an equal schedule.
func (s *Schedule) String() string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	switch s.kind {
	case kindEvery:
		b.WriteString("every " + formatDuration(s.every))
		if d := s.days.String(); d != "" {
			b.WriteString(" " + d)
		}
		if s.hasWindow {
			b.WriteString(" " + clock(s.winStart) + "-" + clock(s.winEnd))
		}
		return b.String()
	case kindDaily:
		b.WriteString("daily ")
		for i, m := range s.times {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(clock(m))
		}
	case kindHourly:
		b.WriteString("hourly ")
		for i, m := range s.times {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, ":%02d", m)
		}
	default:
		return ""
	}
	if d := s.days.String(); d != "" {
		b.WriteString(" " + d)
	}
	return b.String()
}

// MarshalText writes the canonical spelling (for JSON definitions). Store a
// *Schedule with omitempty: an empty string does not parse.
func (s Schedule) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a schedule (for JSON definitions).
func (s *Schedule) UnmarshalText(b []byte) error {
	p, err := Parse(string(b))
	if err != nil {
		return err
	}
	*s = *p
	return nil
}

func clock(m int) string { return fmt.Sprintf("%02d:%02d", m/60, m%60) }

// formatDuration spells a whole-second duration with d, h, m and s units.
func formatDuration(d time.Duration) string {
	var b strings.Builder
	secs := int64(d / time.Second)
	for _, u := range []struct {
		n    int64
		name string
	}{{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}} {
		if secs >= u.n {
			fmt.Fprintf(&b, "%d%s", secs/u.n, u.name)
			secs %= u.n
		}
	}
	if b.Len() == 0 {
		return "0s"
	}
	return b.String()
}
