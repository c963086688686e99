package packaging

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	lcBootout   = "launchctl bootout gui/501/dev.tend.agent"
	lcPrint     = "launchctl print gui/501/dev.tend.agent"
	notFoundOut = "Boot-out failed: 3: No such process\n"
)

func macEnv(home string, r *recorder) Env {
	return Env{Home: home, UID: 501, Runner: r, LookPath: found}
}

func TestLaunchdInstallUninstall(t *testing.T) {
	ctx := context.Background()
	for _, noStart := range []bool{false, true} {
		name := map[bool]string{false: "managed", true: "no start"}[noStart]
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			link, real := fakeBinary(t, t.TempDir(), "tend")
			tendHome := filepath.Join(home, "Library", "Application Support", "tend")
			fakeTendHome(t, tendHome)
			before := snapshot(t, home)

			r := &recorder{replies: map[string]reply{lcBootout: {out: notFoundOut, err: errExit}}}
			m := NewManager("darwin", macEnv(home, r))
			res, err := m.Install(ctx, InstallOptions{Binary: link, NoStart: noStart, Home: tendHome})
			if err != nil {
				t.Fatal(err)
			}
			plistPath := filepath.Join(home, "Library", "LaunchAgents", "dev.tend.agent.plist")
			var want []string
			if !noStart {
				want = []string{lcBootout, "launchctl bootstrap gui/501 " + plistPath}
			}
			if res.Path != plistPath || !res.Changed || res.ManagerUnavailable || !equalCalls(r.calls, want) {
				t.Errorf("install result %+v ran %q, want %q", res, r.calls, want)
			}
			data, err := os.ReadFile(plistPath)
			if err != nil {
				t.Fatal(err)
			}
			checkAgentPlist(t, data, real, tendHome, nil)
			if fi, err := os.Stat(filepath.Join(home, "Library", "Logs", "tend")); err != nil || !fi.IsDir() {
				t.Errorf("log folder not created: %v", err)
			}

			r.calls = nil
			r.replies[lcPrint] = reply{out: "gui/501/dev.tend.agent = {\n\tactive count = 1\n\tstate = running\n}\n"}
			st, err := m.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !st.Installed || st.Binary != real || st.Home != tendHome || !st.Active || st.State != "running" {
				t.Errorf("status %+v", st)
			}

			r.calls = nil
			res, err = m.Uninstall(ctx, UninstallOptions{NoStart: noStart})
			if err != nil {
				t.Fatal(err)
			}
			want = nil
			if !noStart {
				want = []string{lcBootout}
			}
			if !res.Changed || res.ManagerUnavailable || !equalCalls(r.calls, want) {
				t.Errorf("uninstall result %+v ran %q, want %q", res, r.calls, want)
			}
			if d := diffSnapshots(before, snapshot(t, home)); len(d) > 0 {
				t.Errorf("install+uninstall left traces in HOME: %v", d)
			}
		})
	}
}

func TestLaunchdReinstall(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	bins := t.TempDir()
	first, _ := fakeBinary(t, bins, "tend")
	second, _ := fakeBinary(t, bins, "tend-2")
	r := &recorder{}
	m := NewManager("darwin", macEnv(home, r))
	if _, err := m.Install(ctx, InstallOptions{Binary: first}); err != nil {
		t.Fatal(err)
	}
	plistPath := filepath.Join(home, "Library", "LaunchAgents", "dev.tend.agent.plist")
	bootstrap := "launchctl bootstrap gui/501 " + plistPath
	steps := []struct {
		name        string
		binary      string
		printFails  bool // the agent is not loaded any more
		wantChanged bool
		wantCalls   []string
	}{
		{"same binary, loaded", first, false, false, []string{lcPrint}},
		{"same binary, not loaded", first, true, false, []string{lcPrint, bootstrap}},
		{"other binary", second, false, true, []string{lcBootout, bootstrap}},
	}
	for _, s := range steps {
		r.calls = nil
		r.replies = map[string]reply{}
		if s.printFails {
			r.replies[lcPrint] = reply{out: "Could not find service \"dev.tend.agent\" in domain for port\n", err: errExit}
		}
		res, err := m.Install(ctx, InstallOptions{Binary: s.binary})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if res.Changed != s.wantChanged || !equalCalls(r.calls, s.wantCalls) {
			t.Errorf("%s: changed %v ran %q, want %v %q", s.name, res.Changed, r.calls, s.wantChanged, s.wantCalls)
		}
	}
}

func TestLaunchdNoGUISession(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	bin, _ := fakeBinary(t, t.TempDir(), "tend")
	r := &recorder{failAll: &reply{out: "Bootstrap failed: 125: Domain does not support specified action\n", err: errExit}}
	m := NewManager("darwin", macEnv(home, r))
	res, err := m.Install(ctx, InstallOptions{Binary: bin})
	if err != nil {
		t.Fatalf("install should still succeed: %v", err)
	}
	if !res.ManagerUnavailable || !strings.Contains(res.Message, "launchctl bootstrap gui/501 ") || !strings.Contains(res.Message, "Domain does not support") {
		t.Errorf("result %+v", res)
	}
	st, err := m.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Installed || st.Reachable || st.Detail == "" {
		t.Errorf("status %+v", st)
	}
}
