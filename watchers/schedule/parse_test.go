package schedule

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseCanonical(t *testing.T) {
	tests := []struct {
		in, want string
		interval time.Duration
	}{
		{"every 5m", "every 5m", 5 * time.Minute},
		{"every 90s", "every 1m30s", 90 * time.Second},
		{"every 10s", "every 10s", 10 * time.Second},
		{"every 2h", "every 2h", 2 * time.Hour},
		{"every 1d", "every 1d", 24 * time.Hour},
		{"every 30d", "every 30d", 30 * 24 * time.Hour},
		{"every 1d12h", "every 1d12h", 36 * time.Hour},
		{"every 1.5h", "every 1h30m", 90 * time.Minute},
		{"every 720h", "every 30d", 30 * 24 * time.Hour},
		{"  EVERY 10M   Weekdays 9:00 - 18:00 ", "every 10m weekdays 09:00-18:00", 10 * time.Minute},
		{"every 10m 09:00-18:00 weekdays", "every 10m weekdays 09:00-18:00", 10 * time.Minute},
		{"every 30m 22:00-06:00", "every 30m 22:00-06:00", 30 * time.Minute},
		{"every 15m 18:00-24:00", "every 15m 18:00-24:00", 15 * time.Minute},
		{"every 1h weekends", "every 1h weekends", time.Hour},
		{"daily 09:00", "daily 09:00", 0},
		{"daily 17:30,09:00,09:00", "daily 09:00,17:30", 0},
		{"daily 09:00 mon,thu", "daily 09:00 mon,thu", 0},
		{"daily 09:00 thu, mon", "daily 09:00 mon,thu", 0},
		{"daily 09:00 mon-fri", "daily 09:00 weekdays", 0},
		{"daily 09:00 weekdays", "daily 09:00 weekdays", 0},
		{"daily 09:00 sat,sun", "daily 09:00 weekends", 0},
		{"daily 09:00 weekdays,weekends", "daily 09:00", 0},
		{"daily 09:00 monday,Wednesday", "daily 09:00 mon,wed", 0},
		{"daily 09:00 mon-wed,fri", "daily 09:00 mon-wed,fri", 0},
		{"daily 09:00 fri-mon", "daily 09:00 mon,fri-sun", 0},
		{"daily 09:00 mon,tue", "daily 09:00 mon,tue", 0},
		{"hourly :15,:45", "hourly :15,:45", 0},
		{"hourly :45,:05", "hourly :05,:45", 0},
		{"hourly", "hourly :00", 0},
		{"hourly :30 weekdays", "hourly :30 weekdays", 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := s.String(); got != tt.want {
				t.Fatalf("String() = %q, want %q", got, tt.want)
			}
			again, err := Parse(s.String())
			if err != nil || again.String() != tt.want {
				t.Fatalf("round trip: %v, %v", again, err)
			}
			if s.Interval() != tt.interval || s.IsInterval() != (tt.interval != 0) {
				t.Fatalf("Interval() = %v, IsInterval() = %v", s.Interval(), s.IsInterval())
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `schedule is empty; a valid schedule looks like "every 5m"`},
		{"weekly 09:00", `schedule "weekly 09:00": "weekly" is not a kind of schedule: start with every, daily or hourly; a valid schedule looks like "every 5m"`},
		{"every", `every needs an interval`},
		{"every 5x", `schedule "every 5x": "5x" is not an interval`},
		{"every 5s", `schedule "every 5s": interval "5s" is out of range: it must be between 10s and 30d; a valid schedule looks like "every 5m"`},
		{"every 31d", `interval "31d" is out of range: it must be between 10s and 30d`},
		{"every 10.5s", `"10.5s" is not an interval (not a whole number of seconds)`},
		{"every -5m", `"-5m" is not an interval`},
		{"every 10m weekdayz 09:00-18:00", `"weekdayz" is not a day: use mon, tue, wed, thu, fri, sat, sun, a range such as mon-fri, weekdays or weekends; a valid schedule looks like "every 10m weekdays 09:00-18:00"`},
		{"every 10m 25:00-26:00", `"25:00" in window "25:00-26:00" is not a time of day`},
		{"every 10m 09:00-09:00", `window "09:00-09:00" is empty`},
		{"every 10m 00:00-24:00 01:00-02:00", `"01:00-02:00" is a second window`},
		{"every 10m mon tue", `"tue" is not understood`},
		{"daily", `daily needs a time of day such as 09:00; a valid schedule looks like "daily 09:00 mon,thu"`},
		{"daily 9am", `"9am" is not a time of day: use HH:MM from 00:00 to 23:59`},
		{"daily 24:00", `"24:00" is not a time of day`},
		{"daily 09:60", `"09:60" is not a time of day`},
		{"daily 09:00 mun,thu", `"mun" is not a day`},
		{"daily 09:00 mon-fry", `"mon-fry" is not a day`},
		{"daily 09:00 mon thu", `"thu" is not understood after the days "mon"`},
		{"hourly :60", `":60" is not a minute past the hour: use :MM from :00 to :59; a valid schedule looks like "hourly :15,:45"`},
		{"hourly :5", `":5" is not a minute past the hour`},
		{"hourly :15,45", `"45" is not a minute past the hour`},
		{"hourly 15", `"15" is not a day`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want an error", tt.in, s)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse(%q) error\n%s\nwant it to contain\n%s", tt.in, err, tt.want)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	var v struct {
		S *Schedule `json:"schedule"`
	}
	if err := json.Unmarshal([]byte(`{"schedule":"daily 9:00 thu,mon"}`), &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) != `{"schedule":"daily 09:00 mon,thu"}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	if err := json.Unmarshal([]byte(`{"schedule":"daily 9"}`), &v); err == nil || !strings.Contains(err.Error(), `"9" is not a time of day`) {
		t.Fatalf("bad schedule in JSON: %v", err)
	}
}
