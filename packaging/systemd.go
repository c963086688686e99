package packaging

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// systemdManager installs tend as a systemd user unit.
type systemdManager struct{ env Env }

// startHint is what to run by hand to load and start the unit.
const startHint = "systemctl --user daemon-reload && systemctl --user enable --now " + UnitName

func (m *systemdManager) configDir() string {
	if d := m.env.XDGConfigHome; filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(m.env.Home, ".config")
}

// unitPath is where the unit file goes.
func (m *systemdManager) unitPath() string {
	return filepath.Join(m.configDir(), "systemd", "user", UnitName)
}

// pruneStop is where removing empty folders after an uninstall stops: the
// home folder, or the config folder when it lies elsewhere.
func (m *systemdManager) pruneStop() string {
	home, cfg := filepath.Clean(m.env.Home), m.configDir()
	if strings.HasPrefix(cfg, home+string(filepath.Separator)) {
		return home
	}
	return cfg
}

func (m *systemdManager) wantsLink() string {
	return filepath.Join(m.configDir(), "systemd", "user", "default.target.wants", UnitName)
}

// available reports whether systemctl can be found; the reason if not.
func (m *systemdManager) available() (bool, string) {
	if _, err := m.env.LookPath("systemctl"); err != nil {
		return false, "systemctl is not installed"
	}
	return true, ""
}

func (m *systemdManager) Install(ctx context.Context, opts InstallOptions) (Result, error) {
	binary, home, err := resolveInstall(opts)
	if err != nil {
		return Result{}, err
	}
	var envFile string
	var envData []byte
	if opts.EnvDir != "" {
		dir, err := filepath.Abs(opts.EnvDir)
		if err != nil {
			return Result{}, fmt.Errorf("resolving TEND_HOME %s: %w", opts.EnvDir, err)
		}
		envFile = filepath.Join(dir, EnvFileName)
		if envData, err = RenderEnvFile(opts.Env); err != nil {
			return Result{}, err
		}
	}
	unit, err := RenderUnit(UnitParams{Binary: binary, Home: home, EnvFile: envFile})
	if err != nil {
		return Result{}, err
	}
	autostart, err := RenderAutostart(AutostartParams{Binary: binary, Home: home})
	if err != nil {
		return Result{}, err
	}
	path := m.unitPath()
	res := Result{Path: path}
	envChanged := false
	if envFile != "" {
		// Written before the unit, so a started unit finds it; 0600
		// since a proxy URL can carry a password. TEND_HOME is private.
		if err := os.MkdirAll(filepath.Dir(envFile), 0o700); err != nil {
			return res, fmt.Errorf("creating TEND_HOME %s: %w", filepath.Dir(envFile), err)
		}
		if envChanged, err = writePrivateIfChanged(envFile, envData); err != nil {
			return res, fmt.Errorf("writing the service environment: %w", err)
		}
	}
	changed, existed, err := writeIfChanged(path, unit)
	if err != nil {
		return res, fmt.Errorf("installing %s: %w", UnitName, err)
	}
	if _, _, err := writeIfChanged(m.autostartPath(), autostart); err != nil {
		return res, fmt.Errorf("installing the tray's autostart entry: %w", err)
	}
	res.Changed = changed || envChanged
	wrote := "wrote " + path
	if !res.Changed {
		wrote = path + " is already up to date"
	}
	tray := fmt.Sprintf("; the tray icon starts with the desktop session (%s)", m.autostartPath())
	if opts.NoStart {
		res.Message = fmt.Sprintf("%s%s (not started: --no-start).\nTo start it: %s", wrote, tray, startHint)
		return res, nil
	}
	if ok, why := m.available(); !ok {
		return m.fallback(res, wrote+tray, why), nil
	}
	r := m.env.Runner
	// The first command doubles as the probe: if it fails, no user
	// manager answers (typically: no user bus in this session).
	first := []string{"--user", "enable", "--now", UnitName}
	if changed {
		first = []string{"--user", "daemon-reload"}
	}
	if out, err := run(ctx, r, &res, "systemctl", first...); err != nil {
		return m.fallback(res, wrote+tray, firstLine(out, err)), nil
	}
	switch {
	case !res.Changed:
		res.Message = fmt.Sprintf("%s; %s is enabled and running%s", wrote, UnitName, tray)
		return res, nil
	case existed || !changed:
		steps := [][]string{{"--user", "enable", UnitName}, {"--user", "restart", UnitName}}
		if !changed {
			steps = [][]string{{"--user", "restart", UnitName}} // only the environment changed
		}
		for _, args := range steps {
			if _, err := run(ctx, r, &res, "systemctl", args...); err != nil {
				return res, fmt.Errorf("%s, but restarting failed: %w (see `journalctl --user -u %s`)", wrote, err, UnitName)
			}
		}
		res.Message = fmt.Sprintf("updated %s to run %s daemon and restarted %s%s", path, binary, UnitName, tray)
	default:
		if _, err := run(ctx, r, &res, "systemctl", "--user", "enable", "--now", UnitName); err != nil {
			return res, fmt.Errorf("%s, but starting failed: %w (see `journalctl --user -u %s`)", wrote, err, UnitName)
		}
		res.Message = fmt.Sprintf("installed %s at %s running %s daemon; it is started now and at every login%s", UnitName, path, binary, tray)
	}
	return res, nil
}

func (m *systemdManager) fallback(res Result, wrote, why string) Result {
	res.ManagerUnavailable = true
	res.Message = fmt.Sprintf("%s, but no systemd user manager answered (%s).\nTo start it from a login session: %s (on a server, `loginctl enable-linger` first lets it run without a login)", wrote, why, startHint)
	return res
}

func (m *systemdManager) Uninstall(ctx context.Context, opts UninstallOptions) (Result, error) {
	path := m.unitPath()
	res := Result{Path: path}
	there, err := exists(path)
	if err != nil {
		return res, err
	}
	if !there {
		res.Message = fmt.Sprintf("%s is not installed (no %s); nothing to do", UnitName, path)
		return res, nil
	}
	managed := false
	var why string
	if !opts.NoStart {
		if ok, reason := m.available(); !ok {
			why = reason
		} else if out, err := run(ctx, m.env.Runner, &res, "systemctl", "--user", "disable", "--now", UnitName); err != nil {
			why = firstLine(out, err)
		} else {
			managed = true
		}
	}
	if !managed {
		// Nobody ran `disable`: remove the enablement link ourselves so
		// no dangling trace is left behind.
		m.removeWantsLink()
	}
	envFile := ""
	if data, err := os.ReadFile(path); err == nil {
		envFile = parseEnvFile(data)
	}
	if _, err := removeFile(path); err != nil {
		return res, fmt.Errorf("uninstalling %s: %w", UnitName, err)
	}
	res.Changed = true
	pruneEmptyDirs(filepath.Dir(path), m.pruneStop())
	if _, err := removeFile(m.autostartPath()); err != nil {
		return res, fmt.Errorf("removing the tray's autostart entry: %w", err)
	}
	pruneEmptyDirs(filepath.Dir(m.autostartPath()), m.pruneStop())
	// Only the file install wrote: TEND_HOME itself is the user's.
	if envFile != "" && filepath.Base(envFile) == EnvFileName {
		if _, err := removeFile(envFile); err != nil {
			return res, fmt.Errorf("removing the service environment: %w", err)
		}
	}
	if managed {
		if _, err := run(ctx, m.env.Runner, &res, "systemctl", "--user", "daemon-reload"); err != nil {
			return res, fmt.Errorf("removed %s, but reloading systemd failed: %w", path, err)
		}
	}
	switch {
	case managed:
		res.Message = fmt.Sprintf("stopped and disabled %s and removed %s; watchers and history are kept", UnitName, path)
	case opts.NoStart:
		res.Message = fmt.Sprintf("removed %s (service manager not asked: --no-start); watchers and history are kept", path)
	default:
		res.ManagerUnavailable = true
		res.Message = fmt.Sprintf("removed %s; no systemd user manager answered (%s), so if it still runs, stop it from a login session with `systemctl --user stop %s`; watchers and history are kept", path, why, UnitName)
	}
	return res, nil
}

func (m *systemdManager) removeWantsLink() {
	link := m.wantsLink()
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return
	}
	os.Remove(link)
	pruneEmptyDirs(filepath.Dir(link), m.pruneStop())
}

func (m *systemdManager) Status(ctx context.Context) (Status, error) {
	st := Status{Manager: "systemd", Path: m.unitPath()}
	data, err := os.ReadFile(st.Path)
	switch {
	case err == nil:
		st.Installed = true
		st.Binary, st.Home = parseUnit(data)
	case !os.IsNotExist(err):
		return st, fmt.Errorf("reading %s: %w", st.Path, err)
	}
	if ok, why := m.available(); !ok {
		st.Detail = why
		return st, nil
	}
	var scratch Result
	out, err := run(ctx, m.env.Runner, &scratch, "systemctl", "--user", "is-active", UnitName)
	state := strings.TrimSpace(string(out))
	if !stateWord.MatchString(state) {
		st.Detail = "no systemd user manager answered: " + firstLine(out, err)
		return st, nil
	}
	st.Reachable, st.State, st.Active = true, state, state == "active"
	out, _ = run(ctx, m.env.Runner, &scratch, "systemctl", "--user", "is-enabled", UnitName)
	st.Enabled = strings.TrimSpace(string(out)) == "enabled"
	return st, nil
}

// stateWord matches what `systemctl is-active` prints for a unit.
var stateWord = regexp.MustCompile(`^[a-z-]+$`)

// parseUnit reads back the binary from ExecStart= and TEND_HOME from
// Environment= of a unit this package wrote.
func parseUnit(data []byte) (binary, home string) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			w, _ := firstWord(v)
			binary = strings.ReplaceAll(w, "%%", "%")
		}
		if v, ok := strings.CutPrefix(line, "Environment="); ok {
			w, _ := firstWord(v)
			if h, ok := strings.CutPrefix(strings.ReplaceAll(w, "%%", "%"), "TEND_HOME="); ok {
				home = h
			}
		}
	}
	return binary, home
}

// parseEnvFile reads back the EnvironmentFile= of a unit this package wrote.
func parseEnvFile(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "EnvironmentFile=-"); ok {
			return strings.ReplaceAll(v, "%%", "%")
		}
	}
	return ""
}

// firstWord splits off the first systemd word of s, undoing the quoting
// that systemdQuote applies.
func firstWord(s string) (word, rest string) {
	s = strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(s, `"`) {
		w, r, _ := strings.Cut(s, " ")
		return w, r
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == '"':
			return b.String(), s[i+1:]
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

// firstLine is a short reason from a failed command's output.
func firstLine(out []byte, err error) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if line == "" && err != nil {
		return err.Error()
	}
	return line
}
