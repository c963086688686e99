package schedule

import (
	"strings"
	"time"
)

// daySet is a bit set of weekdays, bit i for time.Weekday(i).
type daySet uint8

const (
	allDays  daySet = 0x7f
	weekdays daySet = 0x3e // mon..fri
	weekends daySet = 0x41 // sat, sun
)

func (d daySet) has(w time.Weekday) bool { return d&(1<<uint(w)) != 0 }

var dayNames = [7]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

var dayByName = map[string]time.Weekday{
	"sun": time.Sunday, "sunday": time.Sunday,
	"mon": time.Monday, "monday": time.Monday,
	"tue": time.Tuesday, "tues": time.Tuesday, "tuesday": time.Tuesday,
	"wed": time.Wednesday, "wednesday": time.Wednesday,
	"thu": time.Thursday, "thur": time.Thursday, "thurs": time.Thursday, "thursday": time.Thursday,
	"fri": time.Friday, "friday": time.Friday,
	"sat": time.Saturday, "saturday": time.Saturday,
}

// parseDays parses a comma list of day names, ranges, weekdays and weekends.
// It returns the offending item when one is not understood.
func parseDays(tok string) (daySet, string, bool) {
	var set daySet
	for _, item := range strings.Split(tok, ",") {
		switch item {
		case "weekdays":
			set |= weekdays
			continue
		case "weekends":
			set |= weekends
			continue
		}
		if from, to, ok := strings.Cut(item, "-"); ok {
			a, okA := dayByName[from]
			b, okB := dayByName[to]
			if !okA || !okB {
				return 0, item, false
			}
			for w := a; ; w = (w + 1) % 7 {
				set |= 1 << uint(w)
				if w == b {
					break
				}
			}
			continue
		}
		w, ok := dayByName[item]
		if !ok {
			return 0, item, false
		}
		set |= 1 << uint(w)
	}
	return set, "", true
}

// String is the canonical spelling, "" for every day. Days are listed from
// Monday; three or more consecutive days become a range.
func (d daySet) String() string {
	switch d {
	case allDays, 0:
		return ""
	case weekdays:
		return "weekdays"
	case weekends:
		return "weekends"
	}
	order := []time.Weekday{1, 2, 3, 4, 5, 6, 0}
	var parts []string
	for i := 0; i < len(order); {
		if !d.has(order[i]) {
			i++
			continue
		}
		j := i
		for j+1 < len(order) && d.has(order[j+1]) {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, dayNames[order[i]]+"-"+dayNames[order[j]])
		default:
			for k := i; k <= j; k++ {
				parts = append(parts, dayNames[order[k]])
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
