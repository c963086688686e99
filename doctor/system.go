package doctor

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/watchers"
)

// checkKeyring asks the OS keyring for a key that does not exist: "not
// found" means it answers. Without one, API keys come from
// OPENAI_API_KEY; that is a failure only when an enabled watcher uses an
// OpenAI-compatible server and the variable is not set.
func checkKeyring(d Deps, defs []*watchers.Definition) Result {
	r := Result{Check: "keyring"}
	if d.KeyringProbe == nil {
		r.Level, r.Summary = Warn, "not checked"
		return r
	}
	err := d.KeyringProbe()
	if err == nil {
		r.Level, r.Summary = OK, "the OS keyring answers (API keys are kept there by `tend key set NAME`)"
		return r
	}
	r.Summary = "no OS keyring answers: " + firstLine(err.Error())
	needs := []string{}
	for _, def := range defs {
		if def.Enabled && def.Path != "" && def.Provider.Kind == dispatch.KindOpenAI {
			needs = append(needs, def.Name)
		}
	}
	env := ""
	if d.Getenv != nil {
		env = d.Getenv(dispatch.EnvAPIKey)
	}
	switch {
	case len(needs) > 0 && env == "":
		r.Level = Fail
		r.Detail = append(r.Detail, fmt.Sprintf("watchers %v use an OpenAI-compatible server and no key can be read", needs))
	case env != "":
		r.Level = Warn
		r.Detail = append(r.Detail, "API keys come from "+dispatch.EnvAPIKey+" instead")
	default:
		r.Level = Warn
		r.Detail = append(r.Detail, "only needed for OpenAI-compatible servers that want a key")
	}
	if d.GOOS == "linux" {
		r.Fix = []string{
			"sudo apt install gnome-keyring   # a Secret Service; it starts with a desktop login session",
			"export " + dispatch.EnvAPIKey + "=...   # or, for the service: systemctl --user edit tend (Environment=" + dispatch.EnvAPIKey + "=...)",
		}
	} else {
		r.Fix = []string{"security list-keychains   # the login keychain must be unlocked"}
	}
	return r
}

// checkService reports the login service (systemd user unit or launchd
// agent).
func checkService(ctx context.Context, d Deps) Result {
	r := Result{Check: "service"}
	if d.Service == nil {
		r.Level, r.Summary = Warn, "not checked"
		return r
	}
	st, err := d.Service(ctx)
	if err != nil {
		r.Level, r.Summary = Warn, firstLine(err.Error())
		return r
	}
	mgr := st.Manager
	if mgr == "" {
		mgr = "service manager"
	}
	switch {
	case !st.Installed:
		r.Level = Warn
		r.Summary = fmt.Sprintf("not installed (no %s): tend runs only while `tend daemon` runs", st.Path)
		r.Fix = []string{"tend service install   # starts tend now and at every login"}
		return r
	case !st.Reachable:
		r.Level = Warn
		r.Summary = fmt.Sprintf("installed at %s, but %s does not answer: %s", st.Path, mgr, st.Detail)
		if d.GOOS == "linux" {
			r.Fix = []string{"loginctl enable-linger $USER   # lets the user's systemd run without a login session"}
		}
		return r
	case !st.Active:
		r.Level = Warn
		r.Summary = fmt.Sprintf("installed at %s but not running (%s: %s)", st.Path, mgr, st.State)
		if d.GOOS == "linux" {
			r.Fix = []string{"systemctl --user start tend", "journalctl --user -u tend -n 50   # why it stopped"}
		} else {
			r.Fix = []string{"tend service install   # loads and starts the agent again"}
		}
		return r
	}
	r.Level = OK
	r.Summary = fmt.Sprintf("installed and running (%s: %s)", mgr, st.State)
	if !st.Enabled {
		r.Level = Warn
		r.Summary += ", but it does not start at login"
		r.Fix = []string{"tend service install"}
	}
	if st.Binary != "" && d.Executable != "" && !samePath(st.Binary, d.Executable) {
		r.Level = Warn
		r.Detail = append(r.Detail, fmt.Sprintf("the service runs %s, but this tend is %s", st.Binary, d.Executable))
		r.Fix = append(r.Fix, "tend service install   # points the service at this binary")
	}
	return r
}

func samePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}
