package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemdAnalyzeVerify asks systemd itself to load the generated unit.
// systemd-analyze verify checks that ExecStart's binary exists, so each case
// points at a real executable whose path needs quoting or escaping: a wrong
// escape shows up as "not executable".
func TestSystemdAnalyzeVerify(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian package: systemd)")
	}
	cases := []struct {
		name, dir, home string
	}{
		{"plain", "bin", ""},
		{"spaces", "My Apps/tend dir", "/home/ada/tend home"},
		{"specials", `odd 100% $HOME x&y`, `/srv/50% $off "q" b\c 's`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			binDir := filepath.Join(root, tc.dir)
			if err := os.MkdirAll(binDir, 0o755); err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(binDir, "tend")
			if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			envFile := ""
			if tc.home != "" {
				envFile = filepath.Join(tc.home, EnvFileName)
			}
			unit, err := RenderUnit(UnitParams{Binary: bin, Home: tc.home, EnvFile: envFile})
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range hardening {
				if !strings.Contains(string(unit), "\n"+key+"\n") {
					t.Errorf("unit lacks %s", key)
				}
			}
			if strings.Contains(string(unit), "\nProtectHome=") || strings.Contains(string(unit), "\nProtectSystem=") {
				t.Errorf("unit protects home or system folders: watched folders live there\n%s", unit)
			}
			unitDir := filepath.Join(root, "units")
			if err := os.MkdirAll(unitDir, 0o755); err != nil {
				t.Fatal(err)
			}
			unitPath := filepath.Join(unitDir, UnitName)
			if err := os.WriteFile(unitPath, unit, 0o644); err != nil {
				t.Fatal(err)
			}
			runtime := filepath.Join(root, "runtime")
			if err := os.Mkdir(runtime, 0o700); err != nil {
				t.Fatal(err)
			}
			out, err := analyze(sa, runtime, "--user", unitPath)
			if strings.Contains(string(out), "Failed to initialize manager") {
				// Some hosts cannot set up a user manager even offline;
				// the unit's syntax is the same for the system manager.
				out, err = analyze(sa, runtime, "", unitPath)
			}
			if err != nil {
				t.Fatalf("systemd-analyze verify rejected the unit: %v\n%s\n--- unit ---\n%s", err, out, unit)
			}
			// Unknown keys and bad values are only warnings (exit 0):
			// any complaint about our unit fails the test.
			for _, line := range strings.Split(string(out), "\n") {
				if strings.Contains(line, UnitName) {
					t.Errorf("systemd-analyze: %s\n--- unit ---\n%s", line, unit)
				}
			}
		})
	}
}

// hardening is what the unit must carry; systemd-analyze verify names
// any key that this systemd does not know or any value it refuses.
var hardening = []string{
	"UMask=0077",
	"NoNewPrivileges=yes",
	"LockPersonality=yes",
	"RestrictRealtime=yes",
	"RestrictSUIDSGID=yes",
	"SystemCallArchitectures=native",
}

func analyze(sa, runtime, mode, unitPath string) ([]byte, error) {
	args := []string{"verify", unitPath}
	if mode != "" {
		args = append([]string{mode}, args...)
	}
	cmd := exec.Command(sa, args...)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtime, "SYSTEMD_LOG_COLOR=0")
	return cmd.CombinedOutput()
}
