package packaging

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	cmdReload  = "systemctl --user daemon-reload"
	cmdEnable  = "systemctl --user enable --now tend.service"
	cmdDisable = "systemctl --user disable --now tend.service"
)

func linuxEnv(home string, r *recorder) Env {
	return Env{Home: home, UID: 1000, Runner: r, LookPath: found}
}

func TestSystemdInstallUninstall(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name         string
		xdg          bool // set XDG_CONFIG_HOME
		noStart      bool
		tendHome     bool // pin TEND_HOME
		wantInstall  []string
		wantUninstal []string
	}{
		{name: "managed", wantInstall: []string{cmdReload, cmdEnable}, wantUninstal: []string{cmdDisable, cmdReload}},
		{name: "xdg config home", xdg: true, tendHome: true, wantInstall: []string{cmdReload, cmdEnable}, wantUninstal: []string{cmdDisable, cmdReload}},
		{name: "no start", noStart: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			link, real := fakeBinary(t, t.TempDir(), "tend")
			tendHome := filepath.Join(home, ".config", "tend")
			fakeTendHome(t, tendHome)
			before := snapshot(t, home)

			r := &recorder{}
			env := linuxEnv(home, r)
			unitPath := filepath.Join(home, ".config", "systemd", "user", UnitName)
			if tc.xdg {
				env.XDGConfigHome = filepath.Join(home, "xdg config")
				unitPath = filepath.Join(home, "xdg config", "systemd", "user", UnitName)
			}
			opts := InstallOptions{Binary: link, NoStart: tc.noStart}
			if tc.tendHome {
				opts.Home = tendHome
			}
			m := NewManager("linux", env)
			res, err := m.Install(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Path != unitPath || !res.Changed || res.ManagerUnavailable {
				t.Errorf("install result %+v, want a changed %s", res, unitPath)
			}
			if !equalCalls(r.calls, tc.wantInstall) {
				t.Errorf("install ran %q, want %q", r.calls, tc.wantInstall)
			}
			unit, err := os.ReadFile(unitPath)
			if err != nil {
				t.Fatal(err)
			}
			bin, pinned := parseUnit(unit)
			if bin != real {
				t.Errorf("ExecStart runs %q, want the real path %q (not the symlink)", bin, real)
			}
			if tc.tendHome != (pinned == tendHome) || tc.tendHome != strings.Contains(string(unit), "Environment=") {
				t.Errorf("TEND_HOME pinned as %q (want pinned: %v):\n%s", pinned, tc.tendHome, unit)
			}
			if res.Message == "" || strings.Count(res.Message, "\n") > 1 {
				t.Errorf("message should be one or two lines: %q", res.Message)
			}

			r.calls = nil
			st, err := m.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !st.Installed || st.Binary != real || st.Path != unitPath {
				t.Errorf("status %+v", st)
			}

			r.calls = nil
			res, err = m.Uninstall(ctx, UninstallOptions{NoStart: tc.noStart})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Changed {
				t.Errorf("uninstall result %+v, want changed", res)
			}
			if !equalCalls(r.calls, tc.wantUninstal) {
				t.Errorf("uninstall ran %q, want %q", r.calls, tc.wantUninstal)
			}
			if d := diffSnapshots(before, snapshot(t, home)); len(d) > 0 {
				t.Errorf("install+uninstall left traces in HOME: %v", d)
			}

			r.calls = nil
			res, err = m.Uninstall(ctx, UninstallOptions{NoStart: tc.noStart})
			if err != nil || res.Changed || len(r.calls) != 0 {
				t.Errorf("second uninstall: %+v %v, ran %q; want nothing done", res, err, r.calls)
			}
		})
	}
}

func TestSystemdReinstall(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	bins := t.TempDir()
	first, _ := fakeBinary(t, bins, "tend")
	second, secondReal := fakeBinary(t, bins, "tend-2")
	r := &recorder{}
	m := NewManager("linux", linuxEnv(home, r))
	if _, err := m.Install(ctx, InstallOptions{Binary: first}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name        string
		binary      string
		wantChanged bool
		wantCalls   []string
	}{
		{"same binary", first, false, []string{cmdEnable}},
		{"other binary", second, true, []string{cmdReload, "systemctl --user enable tend.service", "systemctl --user restart tend.service"}},
		{"same again", second, false, []string{cmdEnable}},
	}
	for _, s := range steps {
		r.calls = nil
		res, err := m.Install(ctx, InstallOptions{Binary: s.binary})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if res.Changed != s.wantChanged {
			t.Errorf("%s: changed = %v, want %v (%s)", s.name, res.Changed, s.wantChanged, res.Message)
		}
		if !equalCalls(r.calls, s.wantCalls) {
			t.Errorf("%s: ran %q, want %q", s.name, r.calls, s.wantCalls)
		}
	}
	unit, _ := os.ReadFile(filepath.Join(home, ".config", "systemd", "user", UnitName))
	if bin, _ := parseUnit(unit); bin != secondReal {
		t.Errorf("unit runs %q, want %q", bin, secondReal)
	}
	entries, _ := os.ReadDir(filepath.Join(home, ".config", "systemd", "user"))
	if len(entries) != 1 {
		t.Errorf("unit folder holds %d entries, want only the unit (no temp files)", len(entries))
	}
}

func TestSystemdNoUserManager(t *testing.T) {
	ctx := context.Background()
	noBus := &reply{out: "Failed to connect to bus: No medium found\n", err: errExit}
	cases := []struct {
		name      string
		lookPath  func(string) (string, error)
		failAll   *reply
		wantCalls []string
		wantWhy   string
	}{
		{"systemctl missing", missing, nil, nil, "systemctl is not installed"},
		{"no user bus", found, noBus, []string{cmdReload}, "Failed to connect to bus"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			bin, _ := fakeBinary(t, t.TempDir(), "tend")
			r := &recorder{failAll: tc.failAll}
			m := NewManager("linux", Env{Home: home, UID: 1000, Runner: r, LookPath: tc.lookPath})
			res, err := m.Install(ctx, InstallOptions{Binary: bin})
			if err != nil {
				t.Fatalf("install should still succeed: %v", err)
			}
			if !res.ManagerUnavailable || !res.Changed {
				t.Errorf("result %+v, want the unit written and the manager unavailable", res)
			}
			if _, err := os.Stat(res.Path); err != nil {
				t.Errorf("unit not written: %v", err)
			}
			for _, want := range []string{tc.wantWhy, startHint} {
				if !strings.Contains(res.Message, want) {
					t.Errorf("message %q does not contain %q", res.Message, want)
				}
			}
			if !equalCalls(r.calls, tc.wantCalls) {
				t.Errorf("ran %q, want %q", r.calls, tc.wantCalls)
			}

			st, err := m.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !st.Installed || st.Reachable || !strings.Contains(st.Detail, tc.wantWhy) {
				t.Errorf("status %+v, want installed, unreachable, detail %q", st, tc.wantWhy)
			}

			res, err = m.Uninstall(ctx, UninstallOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.ManagerUnavailable || !res.Changed {
				t.Errorf("uninstall result %+v", res)
			}
			if _, err := os.Stat(filepath.Join(home, ".config")); !os.IsNotExist(err) {
				t.Errorf("uninstall left ~/.config/systemd behind: %v", err)
			}
		})
	}
}

func TestSystemdUninstallRemovesStaleEnablement(t *testing.T) {
	// Installed and enabled earlier, then removed with --no-start: the
	// enablement link systemctl made must not be left dangling.
	ctx := context.Background()
	home := t.TempDir()
	bin, _ := fakeBinary(t, t.TempDir(), "tend")
	m := NewManager("linux", linuxEnv(home, &recorder{}))
	res, err := m.Install(ctx, InstallOptions{Binary: bin, NoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	wants := filepath.Join(filepath.Dir(res.Path), "default.target.wants")
	if err := os.Mkdir(wants, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(res.Path, filepath.Join(wants, UnitName)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Uninstall(ctx, UninstallOptions{NoStart: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(home, ".config")); !os.IsNotExist(err) {
		t.Errorf("uninstall left traces: %v", snapshot(t, home))
	}
}

func TestSystemdStatus(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name          string
		replies       map[string]reply
		wantReachable bool
		wantActive    bool
		wantEnabled   bool
		wantState     string
	}{
		{"running", map[string]reply{
			"systemctl --user is-active tend.service":  {out: "active\n"},
			"systemctl --user is-enabled tend.service": {out: "enabled\n"},
		}, true, true, true, "active"},
		{"stopped", map[string]reply{
			"systemctl --user is-active tend.service":  {out: "inactive\n", err: errExit},
			"systemctl --user is-enabled tend.service": {out: "disabled\n", err: errExit},
		}, true, false, false, "inactive"},
		{"failed", map[string]reply{
			"systemctl --user is-active tend.service":  {out: "failed\n", err: errExit},
			"systemctl --user is-enabled tend.service": {out: "enabled\n"},
		}, true, false, true, "failed"},
		{"no bus", map[string]reply{
			"systemctl --user is-active tend.service": {out: "Failed to connect to bus: No medium found\n", err: errExit},
		}, false, false, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			m := NewManager("linux", linuxEnv(home, &recorder{replies: tc.replies}))
			st, err := m.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Installed {
				t.Error("reported installed with no unit file")
			}
			if st.Reachable != tc.wantReachable || st.Active != tc.wantActive || st.Enabled != tc.wantEnabled || st.State != tc.wantState {
				t.Errorf("status %+v", st)
			}
		})
	}
}

func TestInstallRefusesBadBinary(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "tend")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, goos := range []string{"linux", "darwin"} {
		for _, bin := range []string{"", filepath.Join(dir, "missing"), notExec, dir} {
			r := &recorder{}
			m := NewManager(goos, Env{Home: t.TempDir(), Runner: r, LookPath: found})
			if _, err := m.Install(context.Background(), InstallOptions{Binary: bin}); err == nil {
				t.Errorf("%s: installed binary %q", goos, bin)
			}
			if len(r.calls) > 0 {
				t.Errorf("%s: ran %q for a bad binary", goos, r.calls)
			}
		}
	}
	if _, err := NewManager("plan9", Env{}).Install(context.Background(), InstallOptions{Binary: notExec}); err == nil {
		t.Error("plan9: no error")
	}
}

func TestSystemdStartFailureIsAnError(t *testing.T) {
	// The manager answers but refuses to start the unit: that is a real
	// error, reported with where to look, and the unit stays written.
	home := t.TempDir()
	bin, _ := fakeBinary(t, t.TempDir(), "tend")
	r := &recorder{replies: map[string]reply{cmdEnable: {out: "Job for tend.service failed.\n", err: errExit}}}
	m := NewManager("linux", linuxEnv(home, r))
	res, err := m.Install(context.Background(), InstallOptions{Binary: bin})
	if err == nil || !strings.Contains(err.Error(), "journalctl --user -u tend.service") || !strings.Contains(err.Error(), "Job for tend.service failed") {
		t.Fatalf("err = %v, want the failure and where to look", err)
	}
	if _, err := os.Stat(res.Path); err != nil {
		t.Errorf("unit not kept: %v", err)
	}
}
