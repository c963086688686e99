package packaging

import (
	"bytes"
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"
	"text/template"
)

// AutostartName is the XDG autostart entry that starts the tray icon in
// the graphical session (~/.config/autostart/tend-tray.desktop). The
// systemd unit runs the daemon headless, since a user service has no
// display; the desktop session starts `tend tray` beside it.
const AutostartName = "tend-tray.desktop"

//go:embed tend-tray.desktop
var autostartTemplateText string

var autostartTemplate = template.Must(template.New(AutostartName).Funcs(template.FuncMap{
	"desktopExec":   desktopExecArg,
	"desktopString": desktopString,
}).Parse(autostartTemplateText))

// AutostartParams fill the autostart entry.
type AutostartParams struct {
	Binary string // absolute path of the tend binary
	Home   string // TEND_HOME to pass as --home; empty leaves the default
}

// RenderAutostart renders the XDG autostart entry that runs `tend tray`.
func RenderAutostart(p AutostartParams) ([]byte, error) {
	if err := checkPath("binary", p.Binary); err != nil {
		return nil, err
	}
	if p.Home != "" {
		if err := checkPath("TEND_HOME", p.Home); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	if err := autostartTemplate.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", AutostartName, err)
	}
	return b.Bytes(), nil
}

// autostartPath is where the entry goes: $XDG_CONFIG_HOME/autostart.
func (m *systemdManager) autostartPath() string {
	return filepath.Join(m.configDir(), "autostart", AutostartName)
}

// desktopExecArg quotes one argument of an Exec= key as the Desktop Entry
// Specification asks: an argument with a reserved character is put in
// double quotes, inside which " ` $ and \ take a backslash; "%" is doubled
// so no field code is expanded; and the whole value is then escaped as a
// string value, so every backslash is doubled once more.
func desktopExecArg(s string) string {
	s = strings.ReplaceAll(s, "%", "%%")
	if strings.ContainsAny(s, " \t\n\"'\\><~|&;$*?#()`") {
		var b strings.Builder
		b.WriteByte('"')
		for _, r := range s {
			if strings.ContainsRune("\"`$\\", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
		s = b.String()
	}
	return desktopString(s)
}

// desktopString escapes a string value of a desktop entry.
func desktopString(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(s)
}
