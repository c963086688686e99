package watchers

import (
	"testing"
	"time"
)

func TestTierWindowsAndMaxWait(t *testing.T) {
	cases := []struct {
		tier          string
		window, maxWt time.Duration
	}{
		{"fast", 200 * time.Millisecond, 2 * time.Second},
		{"balanced", time.Second, 10 * time.Second},
		{"patient", 3 * time.Second, 30 * time.Second},
		{"relaxed", time.Minute, 10 * time.Minute},
		{"deferred", 5 * time.Minute, 15 * time.Minute},
		{"extended", 10 * time.Minute, 15 * time.Minute},
		{"", time.Second, 10 * time.Second},
	}
	for _, c := range cases {
		d := Definition{Responsiveness: c.tier}
		w, mw := d.Tier()
		if w != c.window || mw != c.maxWt {
			t.Errorf("%q: got %v/%v want %v/%v", c.tier, w, mw, c.window, c.maxWt)
		}
	}
}

func TestDebouncerQuietAndMaxWait(t *testing.T) {
	t0 := time.Unix(1000, 0)
	cases := []struct {
		name   string
		events []time.Duration // offsets from t0
		want   time.Duration   // due offset
	}{
		{"single event waits one window", []time.Duration{0}, time.Second},
		{"a later event pushes the window", []time.Duration{0, 700 * time.Millisecond}, 1700 * time.Millisecond},
		{"a folder that never calms is capped at max wait", func() []time.Duration {
			var ev []time.Duration
			for i := 0; i < 200; i++ {
				ev = append(ev, time.Duration(i)*500*time.Millisecond)
			}
			return ev
		}(), 10 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Debouncer{Window: time.Second, MaxWait: 10 * time.Second}
			for _, e := range c.events {
				d.Add(t0.Add(e))
			}
			if got := d.Due().Sub(t0); got != c.want {
				t.Fatalf("due at +%v, want +%v", got, c.want)
			}
			d.Reset()
			if d.Pending() {
				t.Fatal("reset left a burst open")
			}
		})
	}
}
