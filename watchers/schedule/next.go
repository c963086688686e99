package schedule

import "time"

// searchDays bounds the look-ahead for the next allowed day (a week plus
// slack for windows that cross midnight).
const searchDays = 9

// Next returns when the next run is due. lastRunEnd is when the previous run
// ended (zero: never ran), now is the current time and loc the location of
// wall-clock times (nil means time.Local).
//
// For an interval the run is due its length after lastRunEnd (now when it
// never ran), moved into the schedule's days and window. For daily and
// hourly times it is the first such time after lastRunEnd (the first at or
// after now when it never ran). Whenever that time has already passed the
// result is now itself: missed runs are not made up, one run is due. The
// result is never before now. A lastRunEnd in the future (the clock was set
// back) is treated as now.
//
// Before the first run, pass Anchor(lastRunEnd, setAt) rather than a zero
// time, so that a first daily or hourly time that passed while the caller
// was busy or asleep is still due.
func (s *Schedule) Next(lastRunEnd, now time.Time, loc *time.Location) time.Time {
	if s == nil || s.kind == 0 {
		return now
	}
	if loc == nil {
		loc = time.Local
	}
	never := lastRunEnd.IsZero()
	if lastRunEnd.After(now) {
		lastRunEnd = now
	}
	var next time.Time
	switch s.kind {
	case kindEvery:
		cand := now
		if !never {
			cand = later(lastRunEnd.Add(s.every), now)
		}
		if !s.hasWindow && s.days == allDays {
			return cand
		}
		next = s.windowFrom(cand, loc)
	case kindDaily:
		if never {
			next = s.dailyAfter(now, true, loc)
		} else {
			next = s.dailyAfter(lastRunEnd, false, loc)
		}
	case kindHourly:
		if never {
			next = s.hourlyAfter(now, true, loc)
		} else {
			next = s.hourlyAfter(lastRunEnd, false, loc)
		}
	}
	if next.IsZero() { // cannot happen with a parsed schedule; be safe
		return now
	}
	return later(next, now)
}

// Anchor returns what to pass to Next as lastRunEnd. Once the watcher has
// run it is lastRunEnd. Before the first run (lastRunEnd zero) it is zero for
// an interval, which is due at once (or when its window opens), and setAt,
// the time the schedule was created or last changed, for daily and hourly
// schedules, whose first run is the first scheduled time after setAt.
func (s *Schedule) Anchor(lastRunEnd, setAt time.Time) time.Time {
	if !lastRunEnd.IsZero() || s.IsInterval() {
		return lastRunEnd
	}
	return setAt
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// windowFrom returns the first instant at or after t inside an allowed
// day's window (the whole day when there is no window).
func (s *Schedule) windowFrom(t time.Time, loc *time.Location) time.Time {
	start, end := 0, 1440
	if s.hasWindow {
		start, end = s.winStart, s.winEnd
		if end <= start {
			end += 1440 // crosses midnight
		}
	}
	y, m, d := t.In(loc).Date()
	for i := -1; i < searchDays; i++ {
		if !s.days.has(weekday(y, m, d+i)) {
			continue
		}
		open, close := wallTime(y, m, d+i, start, loc), wallTime(y, m, d+i, end, loc)
		if close.After(t) {
			return later(open, t)
		}
	}
	return time.Time{}
}

// dailyAfter returns the first daily time after t (at or after t when
// inclusive) on an allowed day.
func (s *Schedule) dailyAfter(t time.Time, inclusive bool, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	for i := -1; i < searchDays; i++ {
		if !s.days.has(weekday(y, m, d+i)) {
			continue
		}
		for _, min := range s.times {
			at := wallTime(y, m, d+i, min, loc)
			if at.After(t) || inclusive && at.Equal(t) {
				return at
			}
		}
	}
	return time.Time{}
}

// hourlyAfter returns the first whole minute after t (at or after t when
// inclusive) whose local minute is in the list, on an allowed day. It moves
// through real time, so every real hour counts, including the repeated hour
// of a fall-back night and none of the skipped one.
func (s *Schedule) hourlyAfter(t time.Time, inclusive bool, loc *time.Location) time.Time {
	lt := t.In(loc)
	at := t.Add(-time.Duration(lt.Second())*time.Second - time.Duration(lt.Nanosecond()))
	if at.Before(t) || !inclusive && at.Equal(t) {
		at = at.Add(time.Minute)
	}
	limit := t.Add(searchDays * 24 * time.Hour)
	for at.Before(limit) {
		l := at.In(loc)
		if !s.days.has(l.Weekday()) {
			y, m, d := l.Date()
			at = wallTime(y, m, d+1, 0, loc)
			continue
		}
		lm := l.Minute()
		step := -1
		for _, w := range s.times {
			if w >= lm {
				step = w - lm
				break
			}
		}
		if step == 0 {
			return at
		}
		if step < 0 {
			step = 60 - lm + s.times[0]
		}
		// Offsets change by whole hours almost everywhere, so the minute
		// of the hour moves in step with real time; the loop re-checks.
		at = at.Add(time.Duration(step) * time.Minute)
	}
	return time.Time{}
}

func weekday(y int, m time.Month, d int) time.Weekday {
	return time.Date(y, m, d, 12, 0, 0, 0, time.UTC).Weekday()
}

// wallTime returns the first instant at which the clock in loc reads the
// given day (normalised, so d may overflow the month) at min minutes after
// midnight (1440 is the next midnight). A wall time that does not exist
// (spring forward) gives the first instant after the gap; one that exists
// twice (fall back) gives the earlier.
func wallTime(y int, m time.Month, d, min int, loc *time.Location) time.Time {
	want := time.Date(y, m, d, 0, min, 0, 0, time.UTC) // the wall clock, as a naive time
	t := time.Date(y, m, d, 0, min, 0, 0, loc)
	got := naive(t)
	if !got.Equal(want) { // in a gap
		start, end := t.ZoneBounds()
		b := end
		if got.After(want) {
			b = start
		}
		if b.IsZero() {
			return t
		}
		return b
	}
	// In an overlap the same wall time also exists earlier.
	for _, back := range []time.Duration{3 * time.Hour, 2 * time.Hour, time.Hour, 30 * time.Minute} {
		if alt := t.Add(-back); naive(alt).Equal(want) {
			return alt
		}
	}
	return t
}

// naive is t's wall clock in its location, written as a UTC time.
func naive(t time.Time) time.Time {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return time.Date(y, mo, d, h, mi, s, t.Nanosecond(), time.UTC)
}
