package packaging

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// EnvFileName is the file under TEND_HOME that holds the systemd
// service's environment, written by `tend service install`.
const EnvFileName = "service.env"

// ServiceEnvNames are the variables a login service keeps from the shell
// that installs it: a service manager starts tend with an almost empty
// environment, so without them the daemon would talk to a different
// Ollama server, bypass the proxy the user needs, or trash files into a
// different folder than the rest of the desktop. API keys are not among
// them: they belong in the keyring (`tend key set`), never in a file.
var ServiceEnvNames = []string{
	"OLLAMA_HOST",
	"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy",
	"XDG_DATA_HOME",
}

// CaptureEnv returns the ServiceEnvNames that getenv has a value for.
func CaptureEnv(getenv func(string) string) map[string]string {
	env := map[string]string{}
	for _, name := range ServiceEnvNames {
		if v := getenv(name); v != "" {
			env[name] = v
		}
	}
	return env
}

func sortedEnv(env map[string]string) []EnvVar {
	vars := make([]EnvVar, 0, len(env))
	for k, v := range env {
		vars = append(vars, EnvVar{k, v})
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i].Name < vars[j].Name })
	return vars
}

// checkEnv refuses names a service manager cannot carry and values with
// control characters (a newline would start a new assignment).
func checkEnv(env map[string]string) error {
	for k, v := range env {
		if k == "" || strings.ContainsFunc(k, func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) || k[0] >= '0' && k[0] <= '9' {
			return fmt.Errorf("environment variable name %q is not a plain name (letters, digits, _)", k)
		}
		if strings.ContainsFunc(v, unicode.IsControl) {
			return fmt.Errorf("environment variable %s holds a control character: set it to a plain value and install again", k)
		}
	}
	return nil
}

// RenderEnvFile renders a systemd environment file: one NAME="value" line
// per variable, in name order. Inside double quotes systemd takes \ " $
// and ` literally when a backslash precedes them.
func RenderEnvFile(env map[string]string) ([]byte, error) {
	if err := checkEnv(env); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("# The environment of tend's systemd user service, as it was when\n")
	b.WriteString("# `tend service install` ran. Edit it and run `systemctl --user restart tend`,\n")
	b.WriteString("# or install again from a shell that has the values you want.\n")
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, "`", "\\`")
	for _, v := range sortedEnv(env) {
		fmt.Fprintf(&b, "%s=\"%s\"\n", v.Name, esc.Replace(v.Value))
	}
	return []byte(b.String()), nil
}
