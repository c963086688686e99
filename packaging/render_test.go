package packaging

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run `go test ./packaging -update` to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

var renderCases = []struct {
	name    string
	binary  string
	home    string
	envFile string
	env     map[string]string
}{
	{"plain", "/usr/local/bin/tend", "", "", nil},
	{"spaces", "/Users/Ada Lovelace/My Apps/Tend.app/Contents/MacOS/tend", "/Users/Ada Lovelace/tend home",
		"/Users/Ada Lovelace/tend home/service.env", map[string]string{"OLLAMA_HOST": "http://10.0.0.5:11434"}},
	{"special", `/opt/100%/$HOME/x&y<z>/tend`, `/srv/50% $off "q" b\c 's`,
		`/srv/50% $off "q" b\c 's/service.env`, map[string]string{"HTTPS_PROXY": "http://u:p&w<@proxy:3128", "NO_PROXY": "localhost"}},
}

func TestRenderUnitGolden(t *testing.T) {
	for _, tc := range renderCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RenderUnit(UnitParams{Binary: tc.binary, Home: tc.home, EnvFile: tc.envFile})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "unit-"+tc.name+".golden", got)
			// What systemd reads back must be the paths we put in.
			bin, home := parseUnit(got)
			if bin != tc.binary || home != tc.home {
				t.Errorf("parsed back binary %q home %q, want %q %q", bin, home, tc.binary, tc.home)
			}
		})
	}
}

func TestRenderPlistGolden(t *testing.T) {
	for _, tc := range renderCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RenderPlist(PlistParams{
				Label: BundleID, Binary: tc.binary, Home: tc.home, Env: tc.env,
				StdoutPath: "/Users/Ada Lovelace/Library/Logs/tend/tend.log",
				StderrPath: "/Users/Ada Lovelace/Library/Logs/tend/tend.err.log",
			})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "plist-"+tc.name+".golden", got)
			checkAgentPlist(t, got, tc.binary, tc.home, tc.env)
			plutilLint(t, got)
		})
	}
}

// checkAgentPlist parses a rendered agent plist and checks every key.
func checkAgentPlist(t *testing.T, data []byte, binary, home string, wantEnv map[string]string) {
	t.Helper()
	v, err := DecodePlist(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("rendered plist does not parse: %v\n%s", err, data)
	}
	d, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("plist root is %T, want a dict", v)
	}
	if d["Label"] != BundleID {
		t.Errorf("Label = %v, want %s", d["Label"], BundleID)
	}
	args, _ := d["ProgramArguments"].([]any)
	if len(args) != 3 || args[0] != binary || args[1] != "daemon" || args[2] != "--tray" {
		t.Errorf("ProgramArguments = %#v, want [%q daemon --tray]", d["ProgramArguments"], binary)
	}
	// The menu-bar icon needs a desktop session: no agent in SSH or
	// background sessions.
	if d["LimitLoadToSessionType"] != "Aqua" {
		t.Errorf("LimitLoadToSessionType = %#v, want Aqua", d["LimitLoadToSessionType"])
	}
	if d["RunAtLoad"] != true {
		t.Errorf("RunAtLoad = %v, want true", d["RunAtLoad"])
	}
	if ka, _ := d["KeepAlive"].(map[string]any); ka["SuccessfulExit"] != false {
		t.Errorf("KeepAlive = %#v, want {SuccessfulExit: false}", d["KeepAlive"])
	}
	if d["ProcessType"] != "Interactive" {
		t.Errorf("ProcessType = %v", d["ProcessType"])
	}
	for _, k := range []string{"StandardOutPath", "StandardErrorPath"} {
		if s, _ := d[k].(string); !strings.Contains(s, "/Library/Logs/tend/") {
			t.Errorf("%s = %v, want a file under ~/Library/Logs/tend/", k, d[k])
		}
	}
	env, hasEnv := d["EnvironmentVariables"].(map[string]any)
	if home == "" && hasEnv && len(env) != len(wantEnv) {
		t.Errorf("EnvironmentVariables present without a pinned TEND_HOME: %#v", env)
	}
	if home != "" && env["TEND_HOME"] != home {
		t.Errorf("TEND_HOME = %v, want %q", env["TEND_HOME"], home)
	}
	for k, v := range wantEnv {
		if env[k] != v {
			t.Errorf("EnvironmentVariables[%s] = %#v, want %q", k, env[k], v)
		}
	}
}

func TestRenderRefusesBadPaths(t *testing.T) {
	cases := []struct {
		name, binary, home string
		unitOnly           bool // systemd refuses it; a plist can carry it
	}{
		{"quote in binary", `/opt/"q"/tend`, "", true},
		{"backslash in binary", `/opt/b\c/tend`, "", true},
		{"apostrophe in binary", `/opt/ada's/tend`, "", true},
		{"relative binary", "bin/tend", "", false},
		{"empty binary", "", "", false},
		{"newline in binary", "/opt/te\nnd", "", false},
		{"relative home", "/usr/bin/tend", "tend-home", false},
		{"control char in home", "/usr/bin/tend", "/h\x01ome", false},
		{"invalid utf-8", "/opt/\xff/tend", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := RenderUnit(UnitParams{Binary: tc.binary, Home: tc.home}); err == nil {
				t.Error("RenderUnit accepted it")
			}
			p := PlistParams{Label: BundleID, Binary: tc.binary, Home: tc.home, StdoutPath: "/l/o", StderrPath: "/l/e"}
			_, err := RenderPlist(p)
			if tc.unitOnly && err != nil {
				t.Errorf("RenderPlist refused it: %v", err)
			}
			if !tc.unitOnly && err == nil {
				t.Error("RenderPlist accepted it")
			}
		})
	}
}
