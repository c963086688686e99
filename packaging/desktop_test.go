package packaging

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemdInstallPutsTrayInSession: installing on Linux also writes an
// XDG autostart entry that starts `tend tray` in the graphical session,
// and uninstalling removes it.
func TestSystemdInstallPutsTrayInSession(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	_, real := fakeBinary(t, t.TempDir(), "tend")
	before := snapshot(t, home)
	m := NewManager("linux", linuxEnv(home, &recorder{}))
	res, err := m.Install(ctx, InstallOptions{Binary: real, NoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(home, ".config", "autostart", AutostartName)
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatalf("no autostart entry after install: %v", err)
	}
	if want := "Exec=" + desktopExecArg(real) + " tray\n"; !strings.Contains(string(data), want) {
		t.Errorf("autostart entry lacks %q:\n%s", want, data)
	}
	if !strings.Contains(res.Message, entry) {
		t.Errorf("install message does not name the autostart entry %s: %q", entry, res.Message)
	}
	if _, err := m.Uninstall(ctx, UninstallOptions{NoStart: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("autostart entry still there after uninstall: %v", err)
	}
	if d := diffSnapshots(before, snapshot(t, home)); len(d) > 0 {
		t.Errorf("install+uninstall left traces in HOME: %v", d)
	}
}

// TestAutostartGolden renders the entry for plain and awkward paths and
// has desktop-file-validate (freedesktop's own checker) read each one.
func TestAutostartGolden(t *testing.T) {
	validate, lookErr := exec.LookPath("desktop-file-validate")
	for _, tc := range renderCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RenderAutostart(AutostartParams{Binary: tc.binary, Home: tc.home})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "autostart-"+tc.name+".golden", got)
			if lookErr != nil {
				t.Skip("desktop-file-validate is not installed (Debian package: desktop-file-utils)")
			}
			path := filepath.Join(t.TempDir(), AutostartName)
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(validate, path).CombinedOutput()
			if err != nil || len(strings.TrimSpace(string(out))) > 0 {
				t.Errorf("desktop-file-validate: %v\n%s\n--- entry ---\n%s", err, out, got)
			}
		})
	}
}

// TestDesktopExecQuoting checks the Exec quoting rules of the Desktop
// Entry spec on the awkward characters one by one.
func TestDesktopExecQuoting(t *testing.T) {
	cases := map[string]string{
		"/usr/bin/tend":    "/usr/bin/tend",
		"/a b/tend":        `"/a b/tend"`,
		"/100%/tend":       "/100%%/tend",
		"/a$b/tend":        `"/a\\$b/tend"`,
		`/a"b/tend`:        `"/a\\"b/tend"`,
		"/a`b/tend":        "\"/a\\\\`b/tend\"",
		`/a\b/tend`:        `"/a\\\\b/tend"`,
		"/50% off/tend":    `"/50%% off/tend"`,
		"/it's/tend":       `"/it's/tend"`,
		"/x&y<z>/tend":     `"/x&y<z>/tend"`,
		"/Ünïcode/tend":    "/Ünïcode/tend",
		"/semi;colon/tend": `"/semi;colon/tend"`,
	}
	for in, want := range cases {
		if got := desktopExecArg(in); got != want {
			t.Errorf("desktopExecArg(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestSystemdInstallKeepsEnvironment: the service reads the variables tend
// needs from TEND_HOME/service.env, a private file that install writes;
// a changed environment restarts the service; uninstall removes the file
// and nothing else of TEND_HOME.
func TestSystemdInstallKeepsEnvironment(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	tendHome := filepath.Join(home, ".config", "tend")
	fakeTendHome(t, tendHome)
	_, real := fakeBinary(t, t.TempDir(), "tend")
	before := snapshot(t, home)
	r := &recorder{}
	m := NewManager("linux", linuxEnv(home, r))
	env := map[string]string{"OLLAMA_HOST": "http://gpu-box:11434", "HTTPS_PROXY": "http://ann:p\"a$s`s\\@proxy:3128"}
	if _, err := m.Install(ctx, InstallOptions{Binary: real, Env: env, EnvDir: tendHome}); err != nil {
		t.Fatal(err)
	}
	envPath := filepath.Join(tendHome, EnvFileName)
	data, err := os.ReadFile(envPath)
	if err != nil {
		t.Fatalf("no environment file: %v", err)
	}
	for _, line := range []string{`OLLAMA_HOST="http://gpu-box:11434"`, "HTTPS_PROXY=\"http://ann:p\\\"a\\$s\\`s\\\\@proxy:3128\""} {
		if !strings.Contains(string(data), "\n"+line+"\n") {
			t.Errorf("environment file lacks %s:\n%s", line, data)
		}
	}
	if fi, _ := os.Stat(envPath); fi == nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("environment file mode %v, want 0600 (a proxy URL can hold a password)", fi.Mode())
	}
	unit, _ := os.ReadFile(filepath.Join(home, ".config", "systemd", "user", UnitName))
	if got := parseEnvFile(unit); got != envPath {
		t.Errorf("unit reads environment file %q, want %q:\n%s", got, envPath, unit)
	}

	r.calls = nil
	env["OLLAMA_HOST"] = "http://other:11434"
	res, err := m.Install(ctx, InstallOptions{Binary: real, Env: env, EnvDir: tendHome})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{cmdEnable, "systemctl --user restart tend.service"}; !res.Changed || !equalCalls(r.calls, want) {
		t.Errorf("a changed environment ran %q (changed %v), want %q", r.calls, res.Changed, want)
	}

	if _, err := m.Uninstall(ctx, UninstallOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := diffSnapshots(before, snapshot(t, home)); len(d) > 0 {
		t.Errorf("install+uninstall left traces in HOME: %v", d)
	}
}

func TestRenderEnvFileRefusesBadInput(t *testing.T) {
	for _, env := range []map[string]string{
		{"OLLAMA_HOST": "a\nEVIL=1"},
		{"BAD NAME": "x"},
		{"1X": "x"},
		{"": "x"},
	} {
		if _, err := RenderEnvFile(env); err == nil {
			t.Errorf("RenderEnvFile(%q) accepted it", env)
		}
	}
}
