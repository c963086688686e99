package packaging

import (
	"bytes"
	_ "embed"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strings"
	"text/template"
	"unicode"
	"unicode/utf8"
)

//go:embed tend.service
var unitTemplateText string

//go:embed launchd.plist
var plistTemplateText string

var (
	unitTemplate = template.Must(template.New("tend.service").Funcs(template.FuncMap{
		"execArg": systemdExecArg,
		"envArg":  systemdEnvArg,
		"pathArg": systemdPathArg,
	}).Parse(unitTemplateText))
	plistTemplate = template.Must(template.New("launchd.plist").Funcs(template.FuncMap{
		"xml": xmlText,
	}).Parse(plistTemplateText))
)

// UnitParams fills the systemd unit template.
type UnitParams struct {
	Binary string // absolute path of the tend binary
	Home   string // TEND_HOME to pin; empty leaves it to tend's default
	// EnvFile is the environment file the unit reads (see EnvFileName);
	// empty reads none.
	EnvFile string
}

// PlistParams fills the launchd agent template.
type PlistParams struct {
	Label      string // launchd label; BundleID
	Binary     string // absolute path of the tend binary
	Home       string // TEND_HOME to pin; empty leaves it to tend's default
	StdoutPath string
	StderrPath string
	// Env is the environment the agent keeps (see CaptureEnv); TEND_HOME
	// comes from Home.
	Env map[string]string
}

// EnvVar is one variable of a rendered environment, in name order.
type EnvVar struct{ Name, Value string }

// Vars lists p.Env in name order, for the template.
func (p PlistParams) Vars() []EnvVar { return sortedEnv(p.Env) }

// RenderUnit renders the systemd user unit. Paths may contain spaces and
// other special characters; they are quoted and escaped for systemd.
func RenderUnit(p UnitParams) ([]byte, error) {
	if err := checkPath("binary", p.Binary); err != nil {
		return nil, err
	}
	if strings.ContainsAny(p.Binary, `"'\`) {
		return nil, fmt.Errorf("systemd cannot run a program whose path contains a quote or a backslash (%s): move tend to a folder with a plain name and install again", p.Binary)
	}
	if p.Home != "" {
		if err := checkPath("TEND_HOME", p.Home); err != nil {
			return nil, err
		}
	}
	if p.EnvFile != "" {
		if err := checkPath("environment file", p.EnvFile); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	if err := unitTemplate.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", UnitName, err)
	}
	return b.Bytes(), nil
}

// RenderPlist renders the launchd agent plist, XML-escaping every value.
func RenderPlist(p PlistParams) ([]byte, error) {
	if p.Label == "" {
		return nil, fmt.Errorf("rendering launchd plist: empty label")
	}
	for _, f := range []struct{ what, path string }{
		{"binary", p.Binary}, {"stdout log", p.StdoutPath}, {"stderr log", p.StderrPath},
	} {
		if err := checkPath(f.what, f.path); err != nil {
			return nil, err
		}
	}
	if p.Home != "" {
		if err := checkPath("TEND_HOME", p.Home); err != nil {
			return nil, err
		}
	}
	if err := checkEnv(p.Env); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := plistTemplate.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("rendering launchd plist: %w", err)
	}
	return b.Bytes(), nil
}

// checkPath refuses what neither a unit file nor a plist can carry
// faithfully: relative paths, invalid UTF-8 and control characters.
func checkPath(what, p string) error {
	if !filepath.IsAbs(p) {
		return fmt.Errorf("%s path %q is not absolute: give the full path", what, p)
	}
	if !utf8.ValidString(p) {
		return fmt.Errorf("%s path %q is not valid UTF-8: move it to a path with a plain name", what, p)
	}
	for _, r := range p {
		if unicode.IsControl(r) {
			return fmt.Errorf("%s path %q contains a control character: move it to a path with a plain name", what, p)
		}
	}
	return nil
}

// systemdExecArg renders the program word of ExecStart=: "%" is doubled so
// systemd expands no specifier, and the word is double-quoted when it holds
// anything but plain characters. systemd never expands variables in the
// program path, so "$" stays as it is; it refuses quotes and backslashes
// there, which RenderUnit checks first.
func systemdExecArg(s string) string {
	return systemdQuote(strings.ReplaceAll(s, "%", "%%"))
}

// systemdEnvArg renders one Environment= assignment. Variables are not
// expanded there, so only "%" is doubled.
func systemdEnvArg(s string) string {
	return systemdQuote(strings.ReplaceAll(s, "%", "%%"))
}

// systemdPathArg renders a path setting such as EnvironmentFile=: systemd
// takes the rest of the line as the path, unquoted, and expands only
// specifiers, so "%" is doubled and nothing else changes.
func systemdPathArg(s string) string { return strings.ReplaceAll(s, "%", "%%") }

func systemdQuote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%$~", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	return `"` + s + `"`
}

func xmlText(s string) (string, error) {
	var b strings.Builder
	if err := xml.EscapeText(&b, []byte(s)); err != nil {
		return "", err
	}
	return b.String(), nil
}
