package tail

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "x.log"), filepath.Join(root, "link.log")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "x.log"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, ok, fail, wantErr string
	}{
		{"relative inside", "logs/app.log", "DONE", "(?i)error", ""},
		{"absolute inside", filepath.Join(root, "app.log"), "", "", ""},
		{"cleaned inside", "logs/../app.log", "", "", ""},
		{"dotdot out", "../app.log", "", "", `tail file "../app.log" is outside the watched folder`},
		{"sneaky dotdot", "logs/../../x.log", "", "", "is outside the watched folder"},
		{"absolute elsewhere", "/etc/passwd", "", "", `tail file "/etc/passwd" is outside the watched folder`},
		{"root itself", ".", "", "", "is outside the watched folder"},
		{"prefix sibling", root + "2/app.log", "", "", "is outside the watched folder"},
		{"symlink out", "link.log", "", "", "resolves to"},
		{"empty", "", "", "", "tail file is empty"},
		{"bad ok", "a.log", "(unclosed", "", `ok pattern "(unclosed" does not compile`},
		{"bad fail", "a.log", "", "[z-a]", `fail pattern "[z-a]" does not compile`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(root, tt.file, tt.ok, tt.fail)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestResolveAndCompile(t *testing.T) {
	root := t.TempDir()
	p, err := Resolve(root, "./logs//app.log")
	if err != nil || p != filepath.Join(root, "logs", "app.log") {
		t.Fatalf("Resolve = %q, %v", p, err)
	}
	ok, fail, err := Compile("", "E")
	if err != nil || ok != nil || fail == nil {
		t.Fatalf("Compile = %v %v %v", ok, fail, err)
	}
}

func TestValidateConfig(t *testing.T) {
	re := regexp.MustCompile("x")
	tests := []struct {
		name    string
		c       Config
		wantErr string
	}{
		{"ok", Config{Path: "/a/b.log", Fail: re}, ""},
		{"silence only", Config{Path: "/a/b.log", Silence: time.Minute}, ""},
		{"relative", Config{Path: "b.log", Fail: re}, "not an absolute path"},
		{"nothing", Config{Path: "/a/b.log"}, "nothing to look for"},
		{"tiny silence", Config{Path: "/a/b.log", Silence: time.Millisecond}, "out of range"},
		{"negative lines", Config{Path: "/a/b.log", OK: re, Lines: -1}, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.c)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
