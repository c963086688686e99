package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "run.sh")
	plain := filepath.Join(dir, "plain.sh")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		spec    Spec
		wantErr string
	}{
		{"command on PATH", Spec{Command: "ls -la", Dir: dir}, ""},
		{"assignment prefix", Spec{Command: "LC_ALL=C FOO=1 grep -q x y", Dir: dir}, ""},
		{"shell keyword", Spec{Command: "if [ -e x ]; then echo y; fi", Dir: dir}, ""},
		{"subshell", Spec{Command: "(cd sub && ls)", Dir: dir}, ""},
		{"quoted program", Spec{Command: `"ls" -1`, Dir: dir}, ""},
		{"pipeline", Spec{Command: "df -h|tail -1", Dir: dir}, ""},
		{"absolute executable", Spec{Command: exe + " --flag", Dir: dir}, ""},
		{"relative executable", Spec{Command: "./run.sh", Dir: dir}, ""},
		{"script", Spec{Script: exe, Dir: dir}, ""},
		{"expansion not judged", Spec{Command: "$HOME/bin/x", Dir: dir}, ""},
		{"tilde expanded", Spec{Command: "~/no-such-dir-xyz/x", Dir: dir}, "no-such-dir-xyz/x does not exist"},
		{"max timeout", Spec{Command: "true", Dir: dir, Timeout: 30 * time.Minute}, ""},
		{"missing command", Spec{Command: "no-such-tool-xyz --check", Dir: dir},
			`check command "no-such-tool-xyz --check": "no-such-tool-xyz" is not on PATH and is not a path to an executable file: install it, or give its full path`},
		{"missing path", Spec{Command: "./nope.sh", Dir: dir}, "nope.sh does not exist: create it or fix the path"},
		{"not executable", Spec{Command: plain, Dir: dir}, "is not executable: run chmod +x"},
		{"script missing", Spec{Script: "gone.sh", Dir: dir}, "check script: " + filepath.Join(dir, "gone.sh") + " does not exist"},
		{"script not executable", Spec{Script: plain, Dir: dir}, "is not executable"},
		{"script is dir", Spec{Script: dir, Dir: dir}, "is not a regular file"},
		{"nothing", Spec{Dir: dir}, "check has no command"},
		{"both", Spec{Command: "true", Script: exe, Dir: dir}, "both a command and a script"},
		{"timeout too long", Spec{Command: "true", Dir: dir, Timeout: 31 * time.Minute}, "check timeout 31m0s is too long: at most 30m0s is allowed"},
		{"negative timeout", Spec{Command: "true", Dir: dir, Timeout: -time.Second}, "is negative"},
		{"dir missing", Spec{Command: "true", Dir: filepath.Join(dir, "gone")}, "check folder"},
		{"dir is file", Spec{Command: "true", Dir: exe}, "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.spec)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestRunRejectsInvalidSpec(t *testing.T) {
	res := Run(t.Context(), Spec{Command: "no-such-tool-xyz", Dir: t.TempDir()})
	if res.Outcome != Failed || res.Err == nil || !strings.Contains(res.Err.Error(), "not on PATH") {
		t.Fatalf("got %+v", res)
	}
}

func TestEffectiveTimeout(t *testing.T) {
	if (Spec{}).EffectiveTimeout() != DefaultTimeout || (Spec{Timeout: time.Second}).EffectiveTimeout() != time.Second {
		t.Fatal("EffectiveTimeout wrong")
	}
}

// tend runs a stored check script by its quoted path in TEND_HOME, which
// holds a space on macOS (~/Library/Application Support/tend).
func TestValidateQuotedPathWithSpaces(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Application Support")
	exe := filepath.Join(dir, "run.sh")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\necho ok\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Validate(Spec{Command: "'" + exe + "' --quick", Dir: dir}); err != nil {
		t.Fatalf("quoted path with a space: %v", err)
	}
	if err := Validate(Spec{Command: `"` + filepath.Join(dir, "missing.sh") + `"`, Dir: dir}); err == nil || !strings.Contains(err.Error(), "missing.sh does not exist") {
		t.Fatalf("a missing quoted path: %v", err)
	}
}
