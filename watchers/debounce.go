package watchers

import "time"

// Debouncer decides when a burst of changes is ready to dispatch: after
// the folder has been quiet for the tier's window, but never later than
// maxWait after the burst's first event, so a folder that never calms
// down is still handled. It is a pure stage: it holds two timestamps and
// no events, so its memory is bounded whatever the burst size.
type Debouncer struct {
	Window  time.Duration
	MaxWait time.Duration
	first   time.Time
	last    time.Time
}

// Add records an event seen at now.
func (d *Debouncer) Add(now time.Time) {
	if d.first.IsZero() {
		d.first = now
	}
	d.last = now
}

// Pending reports whether a burst is open.
func (d *Debouncer) Pending() bool { return !d.first.IsZero() }

// Due is the moment the open burst should be dispatched.
func (d *Debouncer) Due() time.Time {
	quiet := d.last.Add(d.Window)
	if capAt := d.first.Add(d.MaxWait); d.MaxWait > 0 && capAt.Before(quiet) {
		return capAt
	}
	return quiet
}

// Reset closes the burst.
func (d *Debouncer) Reset() { d.first, d.last = time.Time{}, time.Time{} }
