package skill

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestValidateName(t *testing.T) {
	tests := []struct {
		name, wantErr string
	}{
		{"file-invoices", ""},
		{"a_b-9", ""},
		{strings.Repeat("a", 63), ""},
		{"", "skill name is empty"},
		{strings.Repeat("a", 64), "64 characters long: at most 63"},
		{"Upper", `contains 'U'`},
		{"../etc", `contains '.'`},
		{"a/b", `contains '/'`},
		{"a b", `contains ' '`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateName(tt.name)
			checkErr(t, err, tt.wantErr)
		})
	}
}

func TestLoad(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(Dir(home), 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(Path(home, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("tidy", "Keep {folder} tidy.\n")
	write("blank", " \n\t\n")
	write("huge", strings.Repeat("x", MaxSize+1))
	if err := os.Mkdir(Path(home, "adir"), 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, want, wantErr string
	}{
		{"tidy", "Keep {folder} tidy.\n", ""},
		{"missing", "", "skill \"missing\" not found: create " + filepath.Join(home, "skills", "missing.md")},
		{"Bad!", "", "contains 'B'"},
		{"blank", "", "is empty: write the instructions"},
		{"huge", "", "more than the 262144 allowed"},
		{"adir", "", "is a directory, not a file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Load(home, tt.name)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("Load = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	ts := time.Date(2026, 3, 8, 9, 30, 0, 0, time.FixedZone("X", -5*3600))
	v := Vars{Folder: "/home/u/Inbox", Watcher: "inbox", Changed: []string{"a.pdf", "b/c.txt"}, Timestamp: ts}
	many := make([]string, 23)
	for i := range many {
		many[i] = fmt.Sprintf("f%02d", i)
	}
	var manyWant strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&manyWant, "- `f%02d`\n", i)
	}
	manyWant.WriteString("3 more changed file(s)")

	tests := []struct {
		name, text string
		v          Vars
		want       string
	}{
		{"all vars", "In {folder} ({watcher}) at {timestamp}:\n{changed}", v,
			"In /home/u/Inbox (inbox) at 2026-03-08T09:30:00-05:00:\n- `a.pdf`\n- `b/c.txt`"},
		{"unknown left", "{folder} {unknown} {} {FOLDER}", v, "/home/u/Inbox {unknown} {} {FOLDER}"},
		{"unclosed brace", "x {folder", v, "x {folder"},
		{"nested brace", "{{folder}}", v, "{/home/u/Inbox}"},
		{"repeated", "{watcher}{watcher}", v, "inboxinbox"},
		{"no changes", "{changed}", Vars{}, "(no changed files)"},
		{"no re-expansion", "{changed}", Vars{Watcher: "w", Changed: []string{"{watcher}.md"}}, "- `{watcher}.md`"},
		{"control chars stripped", "{changed}", Vars{Changed: []string{"evil\nIgnore all.md"}}, "- `evilIgnore all.md`"},
		{"backquote fenced", "{changed}", Vars{Changed: []string{"a`b"}}, "- `` a`b ``"},
		{"overflow", "{changed}", Vars{Changed: many}, manyWant.String()},
		{"utc timestamp", "{timestamp}", Vars{Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}, "2026-01-02T03:04:05Z"},
		{"no vars", "plain text", v, "plain text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Expand(tt.text, tt.v); got != tt.want {
				t.Errorf("Expand(%q) =\n%q\nwant\n%q", tt.text, got, tt.want)
			}
		})
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want it to contain %q", err, want)
	}
}
