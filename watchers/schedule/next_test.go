package schedule

import (
	"testing"
	"time"
	_ "time/tzdata" // the tests need real zones even where the system has none
)

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	return loc
}

func ts(t testing.TB, s string) time.Time {
	t.Helper()
	if s == "" {
		return time.Time{}
	}
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("bad test time %q: %v", s, err)
	}
	return v
}

func TestNext(t *testing.T) {
	// 2026: US DST starts Sun Mar 8 (02:00 EST -> 03:00 EDT) and ends Sun
	// Nov 1 (02:00 EDT -> 01:00 EST); EU DST starts Sun Mar 29 (02:00 CET
	// -> 03:00 CEST) and ends Sun Oct 25 (03:00 CEST -> 02:00 CET).
	// Mar 6 2026 is a Friday; Jan 29 2026 is a Thursday.
	const (
		ny  = "America/New_York"
		ber = "Europe/Berlin"
		kol = "Asia/Kolkata"
	)
	tests := []struct {
		name, zone, sched string
		lastEnd, now      string
		want              string
	}{
		// Plain intervals.
		{"interval never ran is due now", ny, "every 5m", "", "2026-03-03T10:00:07-05:00", "2026-03-03T10:00:07-05:00"},
		{"interval from end of last run", ny, "every 5m", "2026-03-03T10:00:00-05:00", "2026-03-03T10:01:00-05:00", "2026-03-03T10:05:00-05:00"},
		{"interval exactly due", ny, "every 5m", "2026-03-03T10:00:00-05:00", "2026-03-03T10:05:00-05:00", "2026-03-03T10:05:00-05:00"},
		{"interval missed runs not made up", ny, "every 5m", "2026-03-03T10:00:00-05:00", "2026-03-05T12:00:00-05:00", "2026-03-05T12:00:00-05:00"},
		{"interval lastEnd in the future", ny, "every 5m", "2026-03-03T11:00:00-05:00", "2026-03-03T10:00:00-05:00", "2026-03-03T10:05:00-05:00"},
		{"1d is 24h across spring forward", ny, "every 1d", "2026-03-07T12:00:00-05:00", "2026-03-07T12:00:01-05:00", "2026-03-08T13:00:00-04:00"},

		// Intervals in a weekday window.
		{"window friday evening to monday", ny, "every 10m weekdays 09:00-18:00", "2026-03-06T17:55:00-05:00", "2026-03-06T17:55:00-05:00", "2026-03-09T09:00:00-04:00"},
		{"window inside", ny, "every 10m weekdays 09:00-18:00", "2026-03-06T17:40:00-05:00", "2026-03-06T17:41:00-05:00", "2026-03-06T17:50:00-05:00"},
		{"window end excluded", ny, "every 10m weekdays 09:00-18:00", "2026-03-06T17:50:00-05:00", "2026-03-06T17:51:00-05:00", "2026-03-09T09:00:00-04:00"},
		{"window never ran weekend", ny, "every 10m weekdays 09:00-18:00", "", "2026-03-07T12:00:00-05:00", "2026-03-09T09:00:00-04:00"},
		{"window never ran inside", ny, "every 10m weekdays 09:00-18:00", "", "2026-03-03T10:00:00-05:00", "2026-03-03T10:00:00-05:00"},
		{"window before opening", ny, "every 10m weekdays 09:00-18:00", "2026-03-03T08:00:00-05:00", "2026-03-03T08:30:00-05:00", "2026-03-03T09:00:00-05:00"},
		{"window after long sleep", ny, "every 10m weekdays 09:00-18:00", "2026-03-02T10:00:00-05:00", "2026-03-05T11:00:00-05:00", "2026-03-05T11:00:00-05:00"},
		{"window crossing midnight", ny, "every 30m 22:00-06:00", "2026-03-03T05:50:00-05:00", "2026-03-03T05:51:00-05:00", "2026-03-03T22:00:00-05:00"},
		{"window crossing midnight inside", ny, "every 30m 22:00-06:00", "2026-03-03T23:50:00-05:00", "2026-03-03T23:51:00-05:00", "2026-03-04T00:20:00-05:00"},
		{"window opening in DST gap", ny, "every 10m 02:00-04:00", "2026-03-08T01:40:00-05:00", "2026-03-08T01:41:00-05:00", "2026-03-08T03:00:00-04:00"},
		{"days only, next week", ny, "every 1h weekends", "2026-03-08T23:30:00-04:00", "2026-03-08T23:31:00-04:00", "2026-03-14T00:00:00-04:00"},
		{"days only, inside", ny, "every 1h weekends", "2026-03-07T22:30:00-05:00", "2026-03-07T22:31:00-05:00", "2026-03-07T23:30:00-05:00"},
		{"window to 24:00", ber, "every 15m 18:00-24:00", "2026-03-03T23:50:00+01:00", "2026-03-03T23:51:00+01:00", "2026-03-04T18:00:00+01:00"},

		// Daily.
		{"daily never ran before", ny, "daily 09:00", "", "2026-03-03T08:00:00-05:00", "2026-03-03T09:00:00-05:00"},
		{"daily never ran exactly", ny, "daily 09:00", "", "2026-03-03T09:00:00-05:00", "2026-03-03T09:00:00-05:00"},
		{"daily never ran after", ny, "daily 09:00", "", "2026-03-03T10:00:00-05:00", "2026-03-04T09:00:00-05:00"},
		{"daily after yesterday's run", ny, "daily 09:00", "2026-03-02T09:01:00-05:00", "2026-03-03T08:00:00-05:00", "2026-03-03T09:00:00-05:00"},
		{"daily long sleep one run due now", ny, "daily 09:00", "2026-03-02T09:01:00-05:00", "2026-03-06T10:00:00-05:00", "2026-03-06T10:00:00-05:00"},
		{"daily after the catch-up run", ny, "daily 09:00", "2026-03-06T10:01:00-05:00", "2026-03-06T10:01:00-05:00", "2026-03-07T09:00:00-05:00"},
		{"daily two times", ny, "daily 09:00,17:30", "2026-03-03T09:02:00-05:00", "2026-03-03T09:02:00-05:00", "2026-03-03T17:30:00-05:00"},
		{"daily long run skips a time", ny, "daily 09:00,09:30", "2026-03-03T09:45:00-05:00", "2026-03-03T09:45:00-05:00", "2026-03-04T09:00:00-05:00"},
		{"daily days", ny, "daily 09:00 mon,thu", "2026-01-29T09:01:00-05:00", "2026-01-29T09:01:00-05:00", "2026-02-02T09:00:00-05:00"},
		{"daily month end Jan 31 to Feb 1", ny, "daily 09:00", "2026-01-31T09:05:00-05:00", "2026-01-31T10:00:00-05:00", "2026-02-01T09:00:00-05:00"},
		{"daily Feb 28 to Mar 1", ny, "daily 09:00", "2026-02-28T09:05:00-05:00", "2026-02-28T09:05:00-05:00", "2026-03-01T09:00:00-05:00"},
		{"daily year end", ber, "daily 00:30 weekdays", "2026-12-31T00:31:00+01:00", "2026-12-31T00:31:00+01:00", "2027-01-01T00:30:00+01:00"},
		{"daily weekend to next", ber, "daily 08:00 weekends", "2026-01-31T08:01:00+01:00", "2026-01-31T08:01:00+01:00", "2026-02-01T08:00:00+01:00"},

		// Daily across DST.
		{"NY spring forward 02:30 runs at 03:00 EDT", ny, "daily 02:30", "2026-03-07T02:31:00-05:00", "2026-03-07T12:00:00-05:00", "2026-03-08T03:00:00-04:00"},
		{"NY after spring forward", ny, "daily 02:30", "2026-03-08T03:01:00-04:00", "2026-03-08T03:01:00-04:00", "2026-03-09T02:30:00-04:00"},
		{"NY spring forward 09:00 unaffected", ny, "daily 09:00", "2026-03-07T09:01:00-05:00", "2026-03-07T09:01:00-05:00", "2026-03-08T09:00:00-04:00"},
		{"NY fall back first 01:30", ny, "daily 01:30", "2026-10-31T01:31:00-04:00", "2026-10-31T12:00:00-04:00", "2026-11-01T01:30:00-04:00"},
		{"NY fall back runs once", ny, "daily 01:30", "2026-11-01T01:31:00-04:00", "2026-11-01T01:31:00-04:00", "2026-11-02T01:30:00-05:00"},
		{"NY fall back once even during repeat hour", ny, "daily 01:30", "2026-11-01T01:31:00-04:00", "2026-11-01T01:29:00-05:00", "2026-11-02T01:30:00-05:00"},
		{"Berlin spring forward 02:30 runs at 03:00 CEST", ber, "daily 02:30", "2026-03-28T02:31:00+01:00", "2026-03-28T12:00:00+01:00", "2026-03-29T03:00:00+02:00"},
		{"Berlin fall back first 02:30", ber, "daily 02:30", "2026-10-24T02:31:00+02:00", "2026-10-24T12:00:00+02:00", "2026-10-25T02:30:00+02:00"},
		{"Berlin fall back runs once", ber, "daily 02:30", "2026-10-25T02:31:00+02:00", "2026-10-25T02:31:00+02:00", "2026-10-26T02:30:00+01:00"},

		// Hourly.
		{"hourly next quarter", ny, "hourly :15,:45", "2026-03-03T10:16:00-05:00", "2026-03-03T10:16:00-05:00", "2026-03-03T10:45:00-05:00"},
		{"hourly across midnight", ny, "hourly :15,:45", "2026-03-03T23:50:00-05:00", "2026-03-03T23:50:00-05:00", "2026-03-04T00:15:00-05:00"},
		{"hourly across month end", ny, "hourly :15,:45", "2026-01-31T23:46:00-05:00", "2026-01-31T23:46:00-05:00", "2026-02-01T00:15:00-05:00"},
		{"hourly never ran exact minute", ny, "hourly :15,:45", "", "2026-03-03T10:15:00-05:00", "2026-03-03T10:15:00-05:00"},
		{"hourly never ran mid minute", ny, "hourly :15,:45", "", "2026-03-03T10:15:30-05:00", "2026-03-03T10:45:00-05:00"},
		{"hourly missed is due now", ny, "hourly :15,:45", "2026-03-03T10:16:00-05:00", "2026-03-03T13:00:00-05:00", "2026-03-03T13:00:00-05:00"},
		{"hourly repeated hour on fall back", ny, "hourly :15", "2026-11-01T01:16:00-04:00", "2026-11-01T01:16:00-04:00", "2026-11-01T01:15:00-05:00"},
		{"hourly skipped hour on spring forward", ny, "hourly :15", "2026-03-08T01:16:00-05:00", "2026-03-08T01:16:00-05:00", "2026-03-08T03:15:00-04:00"},
		{"hourly half-hour zone", kol, "hourly :15", "2026-03-03T10:16:00+05:30", "2026-03-03T10:16:00+05:30", "2026-03-03T11:15:00+05:30"},
		{"hourly with days", ny, "hourly :00 weekdays", "2026-03-06T23:01:00-05:00", "2026-03-06T23:01:00-05:00", "2026-03-09T00:00:00-04:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc := mustLoad(t, tt.zone)
			s, err := Parse(tt.sched)
			if err != nil {
				t.Fatal(err)
			}
			got := s.Next(ts(t, tt.lastEnd), ts(t, tt.now), loc)
			if want := ts(t, tt.want); !got.Equal(want) {
				t.Fatalf("%s: Next(%s, %s) = %s, want %s", tt.sched, tt.lastEnd, tt.now,
					got.In(loc).Format(time.RFC3339), want.In(loc).Format(time.RFC3339))
			}
		})
	}
}

// TestNextInvariants drives a simulated daemon through a year in steps of
// 41 minutes and 7 seconds (so many minute offsets and both DST changes are
// crossed): Next is never before now, a due run is due now exactly, and
// right after a run ends the next one is never due at once.
func TestNextInvariants(t *testing.T) {
	scheds := []string{"every 10s", "every 5m", "every 10m weekdays 09:00-18:00", "every 30m 22:00-06:00",
		"daily 02:30", "daily 01:30,09:00 mon,thu", "hourly :15,:45", "hourly :00 weekends"}
	for _, zone := range []string{"America/New_York", "Europe/Berlin", "UTC"} {
		loc := mustLoad(t, zone)
		for _, src := range scheds {
			s, err := Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			var lastEnd time.Time
			runs := 0
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, loc)
			for now := start; now.Before(start.AddDate(1, 0, 0)); now = now.Add(41*time.Minute + 7*time.Second) {
				next := s.Next(s.Anchor(lastEnd, start), now, loc)
				if next.Before(now) {
					t.Fatalf("%s %s: Next(%v, %v) = %v is before now", zone, src, lastEnd, now, next)
				}
				if now.Before(next) {
					continue
				}
				if !next.Equal(now) {
					t.Fatalf("%s %s: due time %v is not now %v", zone, src, next, now)
				}
				runs++
				lastEnd = now.Add(time.Second)
				if again := s.Next(lastEnd, lastEnd, loc); !lastEnd.Before(again) {
					t.Fatalf("%s %s: due again right after a run ending %v", zone, src, lastEnd)
				}
			}
			if runs == 0 {
				t.Fatalf("%s %s: never ran in a year", zone, src)
			}
		}
	}
}

func TestNextDailyWallClock(t *testing.T) {
	// Every daily due time reads the configured wall clock, except on the
	// spring-forward day where it is the end of the gap.
	for _, zone := range []string{"America/New_York", "Europe/Berlin"} {
		loc := mustLoad(t, zone)
		s, _ := Parse("daily 02:30")
		last := time.Date(2026, 1, 1, 12, 0, 0, 0, loc)
		seen := map[string]int{}
		for i := 0; i < 365; i++ {
			next := s.Next(last, last, loc)
			l := next.In(loc)
			seen[l.Format("2006-01-02")]++
			if l.Format("15:04") != "02:30" && l.Format("15:04") != "03:00" {
				t.Fatalf("%s: due at %v", zone, l)
			}
			last = next.Add(time.Minute)
		}
		for day, n := range seen {
			if n != 1 {
				t.Fatalf("%s: %d runs on %s", zone, n, day)
			}
		}
		if len(seen) != 365 {
			t.Fatalf("%s: %d days with a run, want 365", zone, len(seen))
		}
	}
}

func TestNextNilSafe(t *testing.T) {
	now := time.Unix(1e9, 0)
	var s *Schedule
	if !s.Next(time.Time{}, now, nil).Equal(now) || s.String() != "" {
		t.Fatal("nil schedule")
	}
	p, _ := Parse("every 5m")
	if got := p.Next(now, now, nil); !got.Equal(now.Add(5 * time.Minute)) {
		t.Fatalf("nil location: %v", got)
	}
}

func TestAnchor(t *testing.T) {
	loc := mustLoad(t, "Europe/Berlin")
	setAt := time.Date(2026, 5, 4, 8, 0, 0, 0, loc)
	late := time.Date(2026, 5, 4, 9, 0, 3, 0, loc) // the timer fired 3 s late
	daily, _ := Parse("daily 09:00")
	every, _ := Parse("every 1h")
	tests := []struct {
		name          string
		s             *Schedule
		last, now     time.Time
		wantAnchor    time.Time
		wantNext      time.Time
		wantDueAtOnce bool
	}{
		{"daily first run still due when woken late", daily, time.Time{}, late, setAt, late, true},
		{"daily first run waits for its time", daily, time.Time{}, setAt.Add(time.Minute), setAt, setAt.Add(time.Hour), false},
		{"interval first run is due at once", every, time.Time{}, setAt, time.Time{}, setAt, true},
		{"after a run the anchor is its end", daily, late, late, late, time.Date(2026, 5, 5, 9, 0, 0, 0, loc), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.s.Anchor(tt.last, setAt)
			if !a.Equal(tt.wantAnchor) {
				t.Fatalf("Anchor = %v, want %v", a, tt.wantAnchor)
			}
			next := tt.s.Next(a, tt.now, loc)
			if !next.Equal(tt.wantNext) {
				t.Fatalf("Next = %v, want %v", next, tt.wantNext)
			}
			if due := !tt.now.Before(next); due != tt.wantDueAtOnce {
				t.Fatalf("due = %v, want %v", due, tt.wantDueAtOnce)
			}
		})
	}
}
