package tail

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// step changes the file, then polls at t0+at and expects a verdict.
type step struct {
	do        func(t *testing.T, path string)
	at        time.Duration
	kind      string // "" means no verdict
	line      string
	matches   int
	lastLines []string // checked when non-nil
}

func appendTo(s string) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		t.Helper()
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
}

func truncateTo(s string) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil { // O_TRUNC keeps the inode
			t.Fatal(err)
		}
	}
}

// rotate renames the file away, optionally appending a last line to the old
// file through the old name's handle first, then creates a new file.
func rotate(oldTail, newContent string) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		t.Helper()
		appendTo(oldTail)(t, path)
		if err := os.Rename(path, path+".1"); err != nil {
			t.Fatal(err)
		}
		if newContent != "\x00none" {
			if err := os.WriteFile(path, []byte(newContent), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

func TestFollower(t *testing.T) {
	const silence = 10 * time.Minute
	tests := []struct {
		name    string
		initial *string // nil: the file does not exist at the first poll
		lines   int
		steps   []step
	}{
		{name: "ok line", initial: ptr("old line\n"), steps: []step{
			{do: appendTo("working\nbackup DONE\n"), at: time.Second, kind: OK, line: "backup DONE", matches: 1,
				lastLines: []string{"old line", "working", "backup DONE"}},
			{at: 2 * time.Second},
		}},
		{name: "existing content is not matched", initial: ptr("ERROR before start\nDONE\n"), steps: []step{
			{at: time.Second},
			{do: appendTo("plain\n"), at: 2 * time.Second},
		}},
		{name: "fail line", initial: ptr(""), steps: []step{
			{do: appendTo("ERROR disk full\n"), at: time.Second, kind: Fail, line: "ERROR disk full", matches: 1},
		}},
		{name: "fail wins on one line", initial: ptr(""), steps: []step{
			{do: appendTo("DONE with ERROR\n"), at: time.Second, kind: Fail, line: "DONE with ERROR"},
		}},
		{name: "fail wins in one batch, first fail line kept", initial: ptr(""), steps: []step{
			{do: appendTo("DONE\nERROR one\nDONE\nERROR two\n"), at: time.Second, kind: Fail, line: "ERROR one", matches: 2},
		}},
		{name: "last ok line kept", initial: ptr(""), steps: []step{
			{do: appendTo("DONE a\nx\nDONE b\n"), at: time.Second, kind: OK, line: "DONE b", matches: 2},
		}},
		{name: "each match fires once", initial: ptr(""), steps: []step{
			{do: appendTo("DONE\n"), at: time.Second, kind: OK},
			{at: 2 * time.Second},
			{do: appendTo("DONE\n"), at: 3 * time.Second, kind: OK},
		}},
		{name: "partial lines", initial: ptr("start ER"), steps: []step{
			{do: appendTo("ROR half"), at: time.Second},
			{do: appendTo(" done\r\nnext"), at: 2 * time.Second, kind: Fail, line: "start ERROR half done",
				lastLines: []string{"start ERROR half done"}},
			{do: appendTo(" DONE\n"), at: 3 * time.Second, kind: OK, line: "next DONE"},
		}},
		{name: "truncation reads from 0", initial: ptr("aaaaaaaaaaaaaaaaaaaa\n"), steps: []step{
			{do: appendTo("bbbb\n"), at: time.Second},
			{do: truncateTo("DONE\n"), at: 2 * time.Second, kind: OK, line: "DONE",
				lastLines: []string{"aaaaaaaaaaaaaaaaaaaa", "bbbb", "DONE"}},
			{do: appendTo("ERROR\n"), at: 3 * time.Second, kind: Fail, line: "ERROR"},
		}},
		{name: "rotation reads rest of old then new", initial: ptr("x\n"), steps: []step{
			{do: rotate("old ERROR\n", "new DONE\n"), at: time.Second, kind: Fail, line: "old ERROR",
				lastLines: []string{"x", "old ERROR", "new DONE"}},
			{do: appendTo("DONE again\n"), at: 2 * time.Second, kind: OK, line: "DONE again"},
		}},
		{name: "rotation flushes old partial line", initial: ptr(""), steps: []step{
			{do: rotate("unterminated DONE", "\x00none"), at: time.Second},
			{do: appendTo("fresh\n"), at: 2 * time.Second, kind: OK, line: "unterminated DONE",
				lastLines: []string{"unterminated DONE", "fresh"}},
		}},
		{name: "missing then appearing", initial: nil, steps: []step{
			{at: time.Second},
			{do: appendTo("first\nERROR at once\n"), at: 2 * time.Second, kind: Fail, line: "ERROR at once"},
		}},
		{name: "deleted then recreated", initial: ptr("a\n"), steps: []step{
			{do: remove, at: time.Second},
			{do: appendTo("DONE\n"), at: 2 * time.Second, kind: OK, line: "DONE"},
		}},
		{name: "silence once per quiet period", initial: ptr("a\n"), steps: []step{
			{at: silence - time.Second},
			{at: silence, kind: Silence, lastLines: []string{"a"}},
			{at: 3 * silence},
			{do: appendTo("b\n"), at: 3*silence + time.Second},
			{at: 4*silence + 500*time.Millisecond},
			{at: 4*silence + time.Second, kind: Silence, lastLines: []string{"a", "b"}},
		}},
		{name: "silence counts from start for a missing file", initial: nil, steps: []step{
			{at: silence, kind: Silence, lastLines: []string{}},
		}},
		{name: "last lines capped", initial: ptr(""), lines: 3, steps: []step{
			{do: appendTo("1\n2\n3\n4\nDONE\n"), at: time.Second, kind: OK, lastLines: []string{"3", "4", "DONE"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "app.log")
			if tt.initial != nil {
				if err := os.WriteFile(path, []byte(*tt.initial), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f, err := New(Config{Path: path, OK: regexp.MustCompile("DONE"), Fail: regexp.MustCompile("ERROR"),
				Silence: silence, Lines: tt.lines})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			t0 := time.Date(2026, 3, 8, 12, 0, 0, 0, time.UTC)
			if v, err := f.Poll(t0); v != nil || err != nil {
				t.Fatalf("first poll = %+v, %v", v, err)
			}
			for i, st := range tt.steps {
				if st.do != nil {
					st.do(t, path)
				}
				v, err := f.Poll(t0.Add(st.at))
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if st.kind == "" {
					if v != nil {
						t.Fatalf("step %d: unexpected verdict %+v", i, v)
					}
					continue
				}
				if v == nil || v.Kind != st.kind {
					t.Fatalf("step %d: verdict %+v, want kind %q", i, v, st.kind)
				}
				if st.line != "" && v.Line != st.line {
					t.Errorf("step %d: line %q, want %q", i, v.Line, st.line)
				}
				if st.matches != 0 && v.Matches != st.matches {
					t.Errorf("step %d: matches %d, want %d", i, v.Matches, st.matches)
				}
				if st.lastLines != nil && !reflect.DeepEqual(v.LastLines, st.lastLines) {
					t.Errorf("step %d: last lines %q, want %q", i, v.LastLines, st.lastLines)
				}
				if v.Reason == "" {
					t.Errorf("step %d: empty reason", i)
				}
			}
		})
	}
}

func TestLongLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.log")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := New(Config{Path: path, Fail: regexp.MustCompile("ERROR")})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	now := time.Unix(0, 0)
	f.Poll(now)
	appendTo(strings.Repeat("x", 3*MaxLine)+"ERROR\n")(t, path)
	v, err := f.Poll(now.Add(time.Second))
	if err != nil || v == nil || v.Kind != Fail || v.Line != "ERROR" {
		t.Fatalf("verdict %+v, %v", v, err)
	}
	for _, l := range v.LastLines {
		if len(l) > keptLine+20 {
			t.Fatalf("kept line of %d bytes", len(l))
		}
	}
}

func TestPrimeFromLargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.log")
	var b strings.Builder
	for b.Len() < 2*primeSize {
		b.WriteString("some earlier line of the log\n")
	}
	b.WriteString("the very last line\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := New(Config{Path: path, Silence: time.Minute, Lines: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	now := time.Unix(0, 0)
	f.Poll(now)
	v, _ := f.Poll(now.Add(time.Minute))
	want := []string{"some earlier line of the log", "the very last line"}
	if v == nil || v.Kind != Silence || !reflect.DeepEqual(v.LastLines, want) {
		t.Fatalf("verdict %+v, want silence with %q", v, want)
	}
}

func TestPollErrors(t *testing.T) {
	dir := t.TempDir()
	f, err := New(Config{Path: dir, Fail: regexp.MustCompile("x")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Poll(time.Unix(0, 0)); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Poll on a directory: %v", err)
	}
}

func ptr(s string) *string { return &s }
