package schedule

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Examples quoted in error messages.
const (
	exEvery  = "every 10m weekdays 09:00-18:00"
	exDaily  = "daily 09:00 mon,thu"
	exHourly = "hourly :15,:45"
)

var (
	spaceComma = regexp.MustCompile(`\s*,\s*`)
	spaceDash  = regexp.MustCompile(`\s+-\s+`)
	windowRe   = regexp.MustCompile(`^\d{1,2}:\d{2}-\d{1,2}:\d{2}$`)
)

type parser struct{ input string }

func (p parser) errorf(example, format string, args ...any) error {
	return fmt.Errorf("schedule %q: %s; a valid schedule looks like %q", p.input, fmt.Sprintf(format, args...), example)
}

// Parse parses a schedule; see the package comment for the grammar. Errors
// name the word that is wrong and give an example of a valid schedule.
func Parse(s string) (*Schedule, error) {
	p := parser{input: s}
	norm := strings.ToLower(strings.TrimSpace(s))
	norm = spaceComma.ReplaceAllString(norm, ",")
	norm = spaceDash.ReplaceAllString(norm, "-")
	toks := strings.Fields(norm)
	if len(toks) == 0 {
		return nil, fmt.Errorf("schedule is empty; a valid schedule looks like %q or %q", "every 5m", exDaily)
	}
	switch toks[0] {
	case "every":
		return p.every(toks[1:])
	case "daily":
		return p.daily(toks[1:])
	case "hourly":
		return p.hourly(toks[1:])
	}
	return nil, p.errorf("every 5m", "%q is not a kind of schedule: start with every, daily or hourly", toks[0])
}

func (p parser) every(toks []string) (*Schedule, error) {
	if len(toks) == 0 {
		return nil, p.errorf("every 5m", "every needs an interval such as 90s, 5m, 2h or 1d")
	}
	d, err := parseDuration(toks[0])
	if err != nil {
		return nil, p.errorf("every 5m", "%q is not an interval (%v): use a number with s, m, h or d, such as 90s, 5m, 2h or 1d", toks[0], err)
	}
	if d < MinInterval || d > MaxInterval {
		return nil, p.errorf("every 5m", "interval %q is out of range: it must be between 10s and 30d", toks[0])
	}
	s := &Schedule{kind: kindEvery, every: d, days: allDays}
	seenDays := false
	for _, t := range toks[1:] {
		switch {
		case windowRe.MatchString(t):
			if s.hasWindow {
				return nil, p.errorf(exEvery, "%q is a second window: give one HH:MM-HH:MM window", t)
			}
			a, b, _ := strings.Cut(t, "-")
			start, ok := parseClock(a, false)
			if !ok {
				return nil, p.errorf(exEvery, "%q in window %q is not a time of day (00:00 to 23:59)", a, t)
			}
			end, ok := parseClock(b, true)
			if !ok {
				return nil, p.errorf(exEvery, "%q in window %q is not a time of day (00:00 to 24:00)", b, t)
			}
			if start == end {
				return nil, p.errorf(exEvery, "window %q is empty: its start and end must differ", t)
			}
			s.hasWindow, s.winStart, s.winEnd = true, start, end
		default:
			if seenDays {
				return nil, p.errorf(exEvery, "%q is not understood: give the days once, as one comma list, then an optional HH:MM-HH:MM window", t)
			}
			days, err := p.days(t, exEvery)
			if err != nil {
				return nil, err
			}
			s.days, seenDays = days, true
		}
	}
	return s, nil
}

func (p parser) daily(toks []string) (*Schedule, error) {
	if len(toks) == 0 {
		return nil, p.errorf(exDaily, "daily needs a time of day such as 09:00")
	}
	s := &Schedule{kind: kindDaily, days: allDays}
	for _, item := range strings.Split(toks[0], ",") {
		m, ok := parseClock(item, false)
		if !ok {
			return nil, p.errorf(exDaily, "%q is not a time of day: use HH:MM from 00:00 to 23:59", item)
		}
		s.times = append(s.times, m)
	}
	s.times = sortUnique(s.times)
	return p.trailingDays(s, toks[1:], exDaily)
}

func (p parser) hourly(toks []string) (*Schedule, error) {
	s := &Schedule{kind: kindHourly, days: allDays, times: []int{0}}
	if len(toks) > 0 && strings.HasPrefix(toks[0], ":") {
		s.times = nil
		for _, item := range strings.Split(toks[0], ",") {
			m, err := strconv.Atoi(strings.TrimPrefix(item, ":"))
			if !strings.HasPrefix(item, ":") || len(item) != 3 || err != nil || m < 0 || m > 59 {
				return nil, p.errorf(exHourly, "%q is not a minute past the hour: use :MM from :00 to :59", item)
			}
			s.times = append(s.times, m)
		}
		s.times = sortUnique(s.times)
		toks = toks[1:]
	}
	return p.trailingDays(s, toks, exHourly)
}

func (p parser) trailingDays(s *Schedule, toks []string, example string) (*Schedule, error) {
	if len(toks) == 0 {
		return s, nil
	}
	if len(toks) > 1 {
		return nil, p.errorf(example, "%q is not understood after the days %q: give the days as one comma list", toks[1], toks[0])
	}
	days, err := p.days(toks[0], example)
	if err != nil {
		return nil, err
	}
	s.days = days
	return s, nil
}

func (p parser) days(tok, example string) (daySet, error) {
	set, bad, ok := parseDays(tok)
	if !ok {
		if bad == "" {
			bad = tok
		}
		return 0, p.errorf(example, "%q is not a day: use mon, tue, wed, thu, fri, sat, sun, a range such as mon-fri, weekdays or weekends", bad)
	}
	return set, nil
}

// parseClock parses H:MM or HH:MM into minutes after midnight; allow24
// accepts 24:00 (the end of a window).
func parseClock(s string, allow24 bool) (int, bool) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || len(h) < 1 || len(h) > 2 || len(m) != 2 {
		return 0, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || mm < 0 || mm > 59 {
		return 0, false
	}
	if hh == 24 && mm == 0 && allow24 {
		return 1440, true
	}
	if hh > 23 {
		return 0, false
	}
	return hh*60 + mm, true
}

// parseDuration is time.ParseDuration plus a d (24 h) unit, in whole seconds.
func parseDuration(s string) (time.Duration, error) {
	var total time.Duration
	rest := s
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.ParseFloat(s[:i], 64)
		if err != nil || n < 0 || strings.HasPrefix(s, "+") {
			return 0, fmt.Errorf("bad number of days")
		}
		if n > 1e6 {
			return 0, fmt.Errorf("too many days")
		}
		total = time.Duration(n * float64(24*time.Hour))
		rest = s[i+1:]
	}
	if rest != "" {
		d, err := time.ParseDuration(rest)
		if err != nil {
			return 0, fmt.Errorf("not a duration")
		}
		if d < 0 {
			return 0, fmt.Errorf("negative")
		}
		total += d
	}
	if total%time.Second != 0 {
		return 0, fmt.Errorf("not a whole number of seconds")
	}
	return total, nil
}

func sortUnique(xs []int) []int {
	sort.Ints(xs)
	out := xs[:0]
	for _, x := range xs {
		if len(out) == 0 || x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}
