package packaging

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// launchdManager installs tend as a launchd user agent.
type launchdManager struct{ env Env }

func (m *launchdManager) plistPath() string {
	return filepath.Join(m.env.Home, "Library", "LaunchAgents", BundleID+".plist")
}

func (m *launchdManager) logDir() string {
	return filepath.Join(m.env.Home, "Library", "Logs", "tend")
}

func (m *launchdManager) domain() string  { return "gui/" + uidString(m.env.UID) }
func (m *launchdManager) service() string { return m.domain() + "/" + BundleID }

func (m *launchdManager) startHint() string {
	return fmt.Sprintf("launchctl bootstrap %s %s", m.domain(), shellQuote(m.plistPath()))
}

func (m *launchdManager) Install(ctx context.Context, opts InstallOptions) (Result, error) {
	binary, home, err := resolveInstall(opts)
	if err != nil {
		return Result{}, err
	}
	data, err := RenderPlist(PlistParams{
		Label:      BundleID,
		Binary:     binary,
		Home:       home,
		StdoutPath: filepath.Join(m.logDir(), "tend.log"),
		StderrPath: filepath.Join(m.logDir(), "tend.err.log"),
		Env:        opts.Env,
	})
	if err != nil {
		return Result{}, err
	}
	path := m.plistPath()
	res := Result{Path: path}
	// launchd does not create the folder of its log files.
	if err := os.MkdirAll(m.logDir(), 0o755); err != nil {
		return res, fmt.Errorf("creating log folder %s: %w", m.logDir(), err)
	}
	changed, existed, err := writeIfChanged(path, data)
	if err != nil {
		return res, fmt.Errorf("installing launch agent: %w", err)
	}
	res.Changed = changed
	wrote := "wrote " + path
	if !changed {
		wrote = path + " is already up to date"
	}
	if opts.NoStart {
		res.Message = fmt.Sprintf("%s (not loaded: --no-start).\nTo load it: %s", wrote, m.startHint())
		return res, nil
	}
	if _, err := m.env.LookPath("launchctl"); err != nil {
		return m.fallback(res, wrote, "launchctl is not installed"), nil
	}
	r := m.env.Runner
	if !changed {
		if _, err := run(ctx, r, &res, "launchctl", "print", m.service()); err == nil {
			res.Message = fmt.Sprintf("%s; %s is loaded", wrote, BundleID)
			return res, nil
		}
	} else {
		// Unload the old definition; "not loaded" is the usual answer
		// on a first install and is fine.
		run(ctx, r, &res, "launchctl", "bootout", m.service())
	}
	if out, err := run(ctx, r, &res, "launchctl", "bootstrap", m.domain(), path); err != nil {
		return m.fallback(res, wrote, firstLine(out, err)), nil
	}
	switch {
	case existed && changed:
		res.Message = fmt.Sprintf("updated %s to run %s daemon --tray and reloaded %s", path, binary, BundleID)
	default:
		res.Message = fmt.Sprintf("installed launch agent %s running %s daemon --tray; it is started now and at every login to the desktop (logs in %s)", path, binary, m.logDir())
	}
	return res, nil
}

func (m *launchdManager) fallback(res Result, wrote, why string) Result {
	res.ManagerUnavailable = true
	res.Message = fmt.Sprintf("%s, but launchd did not load it (%s).\nTo load it from a logged-in desktop session: %s", wrote, why, m.startHint())
	return res
}

func (m *launchdManager) Uninstall(ctx context.Context, opts UninstallOptions) (Result, error) {
	path := m.plistPath()
	res := Result{Path: path}
	there, err := exists(path)
	if err != nil {
		return res, err
	}
	if !there {
		res.Message = fmt.Sprintf("the launch agent is not installed (no %s); nothing to do", path)
		return res, nil
	}
	var why string
	stopped := false
	if !opts.NoStart {
		if _, err := m.env.LookPath("launchctl"); err != nil {
			why = "launchctl is not installed"
		} else if out, err := run(ctx, m.env.Runner, &res, "launchctl", "bootout", m.service()); err != nil && !notLoaded(out) {
			why = firstLine(out, err)
		} else {
			stopped = true
		}
	}
	if _, err := removeFile(path); err != nil {
		return res, fmt.Errorf("uninstalling launch agent: %w", err)
	}
	res.Changed = true
	if err := os.RemoveAll(m.logDir()); err != nil {
		return res, fmt.Errorf("removing log folder %s: %w", m.logDir(), err)
	}
	pruneEmptyDirs(filepath.Dir(path), m.env.Home)
	pruneEmptyDirs(filepath.Dir(m.logDir()), m.env.Home)
	switch {
	case stopped:
		res.Message = fmt.Sprintf("stopped %s and removed %s and its logs; watchers and history are kept", BundleID, path)
	case opts.NoStart:
		res.Message = fmt.Sprintf("removed %s and its logs (launchd not asked: --no-start); watchers and history are kept", path)
	default:
		res.ManagerUnavailable = true
		res.Message = fmt.Sprintf("removed %s and its logs; launchd did not unload it (%s), so run `launchctl bootout %s`; watchers and history are kept", path, why, m.service())
	}
	return res, nil
}

// notLoaded recognises launchctl's answers for a service that is not loaded.
func notLoaded(out []byte) bool {
	s := strings.ToLower(string(out))
	return strings.Contains(s, "could not find") || strings.Contains(s, "no such process") || strings.Contains(s, "not loaded")
}

func (m *launchdManager) Status(ctx context.Context) (Status, error) {
	st := Status{Manager: "launchd", Path: m.plistPath()}
	data, err := os.ReadFile(st.Path)
	switch {
	case err == nil:
		st.Installed = true
		st.Binary, st.Home = parseAgent(data)
	case !os.IsNotExist(err):
		return st, fmt.Errorf("reading %s: %w", st.Path, err)
	}
	if _, err := m.env.LookPath("launchctl"); err != nil {
		st.Detail = "launchctl is not installed"
		return st, nil
	}
	var scratch Result
	out, err := run(ctx, m.env.Runner, &scratch, "launchctl", "print", m.service())
	switch {
	case err == nil:
		st.Reachable, st.Enabled = true, true
		st.State = printedState(out)
		st.Active = st.State == "running"
	case notLoaded(out):
		st.Reachable, st.State = true, "not loaded"
	default:
		st.Detail = "launchd did not answer: " + firstLine(out, err)
	}
	return st, nil
}

// printedState picks "state = running" out of `launchctl print`.
func printedState(out []byte) string {
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "state = "); ok {
			return strings.TrimSpace(v)
		}
	}
	return "loaded"
}

// parseAgent reads back the binary and TEND_HOME of an agent plist.
func parseAgent(data []byte) (binary, home string) {
	v, err := DecodePlist(bytes.NewReader(data))
	if err != nil {
		return "", ""
	}
	dict, _ := v.(map[string]any)
	if args, ok := dict["ProgramArguments"].([]any); ok && len(args) > 0 {
		binary, _ = args[0].(string)
	}
	if env, ok := dict["EnvironmentVariables"].(map[string]any); ok {
		home, _ = env["TEND_HOME"].(string)
	}
	return binary, home
}
