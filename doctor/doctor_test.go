package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/packaging"
	"github.com/tend-agent/tend/watchers"
)

type fakeProvider struct{ model string }

func (f fakeProvider) Name() string  { return "ollama" }
func (f fakeProvider) Model() string { return f.model }
func (f fakeProvider) Chat(context.Context, []dispatch.Message, []dispatch.ToolSpec) (dispatch.Reply, error) {
	return dispatch.Reply{}, nil
}

func procFiles(watches, instances string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		switch p {
		case procWatches:
			if watches == "" {
				return nil, os.ErrNotExist
			}
			return []byte(watches + "\n"), nil
		case procInstances:
			return []byte(instances + "\n"), nil
		}
		return nil, os.ErrNotExist
	}
}

func def(name string, recursive bool, dir string) *watchers.Definition {
	return &watchers.Definition{ID: "id-" + name, Name: name, Path: dir, Enabled: true, Recursive: recursive}
}

func TestInotify(t *testing.T) {
	dirs := map[string]int{"/big": 9000, "/small": 40}
	count := func(root string) (int, error) {
		if n, ok := dirs[root]; ok {
			return n, nil
		}
		return 0, fmt.Errorf("no such folder")
	}
	polling := &api.Status{Watchers: []api.View{{
		Definition: *def("small", true, "/small"),
		State:      watchers.State{WatchMode: "poll", WatchReason: "out of inotify watches (ENOSPC): raise fs.inotify.max_user_watches"},
	}}}
	cases := []struct {
		name      string
		goos      string
		watches   string
		instances string
		defs      []*watchers.Definition
		st        *api.Status
		level     Level
		summary   string
		fix       string // a fix line that must appear ("" = no fix)
	}{
		{"plenty", "linux", "65536", "128", []*watchers.Definition{def("small", true, "/small")}, nil, OK,
			"the watchers need 41 watch(es) of max_user_watches 65536, and 2 instance(s) of max_user_instances 128", ""},
		{"flat folder needs one", "linux", "100", "128", []*watchers.Definition{def("big", false, "/big")}, nil, OK,
			"the watchers need 2 watch(es)", ""},
		{"near the limit", "linux", "10000", "128", []*watchers.Definition{def("big", true, "/big")}, nil, Warn,
			"need 9001", "sudo sysctl fs.inotify.max_user_watches=524288"},
		{"over the limit", "linux", "8192", "128", []*watchers.Definition{def("big", true, "/big"), def("small", true, "/small")}, nil, Fail,
			"need 9041", "echo fs.inotify.max_user_watches=524288 | sudo tee -a /etc/sysctl.d/60-tend-inotify.conf"},
		{"huge need suggests more", "linux", "8192", "128", []*watchers.Definition{def("big", true, "/big"), def("b2", true, "/big"), def("b3", true, "/big"), def("b4", true, "/big"), def("b5", true, "/big"), def("b6", true, "/big"), def("b7", true, "/big"), def("b8", true, "/big"), def("b9", true, "/big"), def("b10", true, "/big"), def("b11", true, "/big"), def("b12", true, "/big"), def("b13", true, "/big"), def("b14", true, "/big"), def("b15", true, "/big"), def("b16", true, "/big"), def("b17", true, "/big"), def("b18", true, "/big"), def("b19", true, "/big"), def("b20", true, "/big"), def("b21", true, "/big"), def("b22", true, "/big"), def("b23", true, "/big"), def("b24", true, "/big"), def("b25", true, "/big"), def("b26", true, "/big"), def("b27", true, "/big"), def("b28", true, "/big"), def("b29", true, "/big"), def("b30", true, "/big")}, nil, Fail,
			"need 270001", "sudo sysctl fs.inotify.max_user_watches=1048576"},
		{"too few instances", "linux", "65536", "2", []*watchers.Definition{def("small", true, "/small"), def("s2", true, "/small")}, nil, Fail,
			"3 instance(s) of max_user_instances 2", "sudo sysctl fs.inotify.max_user_instances=1024"},
		{"disabled and templates do not count", "linux", "65536", "128", []*watchers.Definition{{Name: "off", Path: "/big", Recursive: true}, {Name: "tmpl", Enabled: true}}, nil, OK,
			"need 1 watch(es)", ""},
		{"a watcher fell back to polling", "linux", "65536", "128", []*watchers.Definition{def("small", true, "/small")}, polling, Warn,
			"need 41", ""},
		{"limits unreadable", "linux", "", "128", nil, nil, Warn, "cannot read the inotify limits", ""},
		{"macOS", "darwin", "", "", nil, nil, OK, "not used on darwin", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Deps{GOOS: c.goos, ReadFile: procFiles(c.watches, c.instances), CountDirs: count}
			r := checkInotify(d, c.defs, c.st)
			if r.Level != c.level || !strings.Contains(r.Summary, c.summary) {
				t.Errorf("got %s %q, want %s containing %q (detail %v)", r.Level, r.Summary, c.level, c.summary, r.Detail)
			}
			fixes := strings.Join(r.Fix, "\n")
			if c.fix == "" && c.level == OK && fixes != "" {
				t.Errorf("unexpected fix %q", fixes)
			}
			if c.fix != "" && !strings.Contains(fixes, c.fix) {
				t.Errorf("fix\n%s\nlacks %q", fixes, c.fix)
			}
		})
	}
}

func TestModels(t *testing.T) {
	unreachable := &dispatch.ProviderError{Kind: dispatch.FailUnreachable, Provider: "ollama", Msg: "cannot reach the Ollama server at http://127.0.0.1:11434: is `ollama serve` running?"}
	noModel := &dispatch.ProviderError{Kind: dispatch.FailNoModel, Provider: "ollama", Msg: "the Ollama server at http://127.0.0.1:11434 has no models: pull a tool-capable one"}
	auth := &dispatch.ProviderError{Kind: dispatch.FailAuth, Provider: "openai", Msg: "the server refused the API key (401)"}
	openai := def("remote", true, "/r")
	openai.Provider = watchers.Provider{Kind: "openai", BaseURL: "http://gpu:8000/v1", KeyName: "gpu"}
	withModel := def("notes", true, "/n")
	withModel.Provider.Model = "qwen3:8b"
	cases := []struct {
		name    string
		defs    []*watchers.Definition
		errs    map[string]error // by kind
		want    []string         // "LEVEL summary-part"
		fix     string
		asked   int
		envHost string
	}{
		{"default ollama answers", nil, nil, []string{"OK ollama at http://127.0.0.1:11434 answers; tool-capable model: qwen3:8b"}, "", 1, ""},
		{"OLLAMA_HOST is named", nil, nil, []string{"OK ollama at http://10.0.0.5:11434 (OLLAMA_HOST) answers"}, "", 1, "http://10.0.0.5:11434"},
		{"unreachable", []*watchers.Definition{def("inbox", true, "/i")}, map[string]error{"ollama": unreachable}, []string{"FAIL ollama at http://127.0.0.1:11434: cannot reach"}, "ollama serve", 1, ""},
		{"no model", nil, map[string]error{"ollama": noModel}, []string{"FAIL ollama at http://127.0.0.1:11434: the Ollama server"}, "ollama pull qwen3:8b", 1, ""},
		{"one check per server", []*watchers.Definition{def("inbox", true, "/i"), withModel, openai}, map[string]error{"openai": auth},
			[]string{"OK ollama at http://127.0.0.1:11434 answers", "FAIL openai at http://gpu:8000/v1: the server refused"}, "tend key set gpu", 2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			asked := 0
			d := Deps{
				Getenv: func(k string) string {
					if k == "OLLAMA_HOST" {
						return c.envHost
					}
					return ""
				},
				NewProvider: func(ctx context.Context, cfg dispatch.ProviderConfig) (dispatch.Provider, error) {
					asked++
					if cfg.Model != "" {
						t.Errorf("asked for model %q: the check must let the server pick", cfg.Model)
					}
					if err := c.errs[cfg.Kind]; err != nil {
						return nil, err
					}
					return fakeProvider{model: "qwen3:8b"}, nil
				},
			}
			rs := checkModels(context.Background(), d, c.defs)
			if asked != c.asked {
				t.Errorf("asked %d servers, want %d", asked, c.asked)
			}
			if len(rs) != len(c.want) {
				t.Fatalf("got %d results %+v, want %d", len(rs), rs, len(c.want))
			}
			var fixes []string
			for i, r := range rs {
				got := string(r.Level) + " " + r.Summary
				if !strings.HasPrefix(got, c.want[i]) {
					t.Errorf("result %d: %q, want prefix %q", i, got, c.want[i])
				}
				fixes = append(fixes, r.Fix...)
			}
			if c.fix != "" && !strings.Contains(strings.Join(fixes, "\n"), c.fix) {
				t.Errorf("fixes %q lack %q", fixes, c.fix)
			}
		})
	}
}

func TestKeyring(t *testing.T) {
	remote := def("remote", true, "/r")
	remote.Provider.Kind = "openai"
	noBus := errors.New("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service")
	cases := []struct {
		name  string
		probe error
		defs  []*watchers.Definition
		env   string
		level Level
	}{
		{"answers", nil, []*watchers.Definition{remote}, "", OK},
		{"none, nobody needs it", noBus, []*watchers.Definition{def("inbox", true, "/i")}, "", Warn},
		{"none, env fallback", noBus, []*watchers.Definition{remote}, "sk-test", Warn},
		{"none, a watcher needs a key", noBus, []*watchers.Definition{remote}, "", Fail},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Deps{GOOS: "linux", KeyringProbe: func() error { return c.probe }, Getenv: func(k string) string {
				if k == dispatch.EnvAPIKey {
					return c.env
				}
				return ""
			}}
			r := checkKeyring(d, c.defs)
			if r.Level != c.level {
				t.Errorf("level %s, want %s (%s)", r.Level, c.level, r.Summary)
			}
			if c.level != OK && len(r.Fix) == 0 {
				t.Errorf("no fix for %q", r.Summary)
			}
			if strings.Contains(strings.Join(append(r.Detail, r.Summary), " "), "sk-test") {
				t.Errorf("the key leaked into the report")
			}
		})
	}
}

func TestService(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "tend")
	other := filepath.Join(t.TempDir(), "tend")
	for _, p := range []string{exe, other} {
		os.WriteFile(p, []byte("x"), 0o755)
	}
	cases := []struct {
		name  string
		st    packaging.Status
		err   error
		level Level
		fix   string
	}{
		{"not installed", packaging.Status{Manager: "systemd", Path: "/u/tend.service"}, nil, Warn, "tend service install"},
		{"running", packaging.Status{Manager: "systemd", Installed: true, Reachable: true, Active: true, Enabled: true, State: "active", Binary: exe}, nil, OK, ""},
		{"stopped", packaging.Status{Manager: "systemd", Installed: true, Reachable: true, State: "failed", Enabled: true}, nil, Warn, "systemctl --user start tend"},
		{"no user manager", packaging.Status{Manager: "systemd", Installed: true, Detail: "Failed to connect to bus"}, nil, Warn, "loginctl enable-linger $USER"},
		{"not at login", packaging.Status{Manager: "systemd", Installed: true, Reachable: true, Active: true, State: "active"}, nil, Warn, "tend service install"},
		{"another binary", packaging.Status{Manager: "systemd", Installed: true, Reachable: true, Active: true, Enabled: true, State: "active", Binary: other}, nil, Warn, "points the service at this binary"},
		{"unsupported", packaging.Status{}, errors.New("tend service is not supported on plan9"), Warn, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Deps{GOOS: "linux", Executable: exe, Service: func(context.Context) (packaging.Status, error) { return c.st, c.err }}
			r := checkService(context.Background(), d)
			if r.Level != c.level {
				t.Errorf("level %s, want %s (%s)", r.Level, c.level, r.Summary)
			}
			if c.fix != "" && !strings.Contains(strings.Join(r.Fix, "\n"), c.fix) {
				t.Errorf("fix %q lacks %q", r.Fix, c.fix)
			}
		})
	}
}

// fullDeps is a healthy machine; tests change one thing.
func fullDeps(t *testing.T) Deps {
	dir := t.TempDir()
	return Deps{
		Version: "1.2.3", GoVer: "go1.26", GOOS: "linux", GOARCH: "amd64", OSName: "Debian GNU/Linux 12 (bookworm)",
		Socket: "/h/tend.sock",
		Status: func(context.Context) (api.Status, error) {
			return api.Status{PID: 42, Version: "1.2.3", HTTP: "http://127.0.0.1:7433/", Watchers: []api.View{{Definition: *def("inbox", true, dir)}}}, nil
		},
		LoadWatchers: func() ([]*watchers.Definition, []error) {
			t.Error("read the store while the daemon runs")
			return nil, nil
		},
		ReadFile:  procFiles("65536", "128"),
		CountDirs: CountDirs,
		Getenv:    func(string) string { return "" },
		NewProvider: func(context.Context, dispatch.ProviderConfig) (dispatch.Provider, error) {
			return fakeProvider{model: "qwen3:8b"}, nil
		},
		KeyringProbe: func() error { return nil },
		Service: func(context.Context) (packaging.Status, error) {
			return packaging.Status{Manager: "systemd", Installed: true, Reachable: true, Active: true, Enabled: true, State: "active"}, nil
		},
	}
}

func TestRunHealthy(t *testing.T) {
	rep := Run(context.Background(), fullDeps(t))
	if rep.Failed() {
		t.Fatalf("failed: %+v", rep)
	}
	var out bytes.Buffer
	rep.WriteText(&out)
	want := []string{
		"OK    versions: tend 1.2.3, go1.26, linux/amd64, Debian GNU/Linux 12 (bookworm)",
		"OK    daemon: running (pid 42, version 1.2.3), 1 watcher(s), 0 run(s) going",
		"OK    watchers: 1 watcher(s), 1 enabled",
		"OK    inotify: the watchers need 2 watch(es) of max_user_watches 65536, and 2 instance(s) of max_user_instances 128",
		"OK    model server: ollama at http://127.0.0.1:11434 answers; tool-capable model: qwen3:8b",
		"OK    keyring: the OS keyring answers",
		"OK    service: installed and running (systemd: active)",
		"no failures.",
	}
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
}

func TestRunNoDaemon(t *testing.T) {
	d := fullDeps(t)
	dir := t.TempDir()
	d.Status = func(context.Context) (api.Status, error) {
		return api.Status{}, fmt.Errorf("%w (nothing answers on /h/tend.sock)", api.ErrNoDaemon)
	}
	d.LoadWatchers = func() ([]*watchers.Definition, []error) {
		return []*watchers.Definition{def("inbox", true, dir), def("gone", true, filepath.Join(dir, "missing"))},
			[]error{errors.New("reading watcher bad.json: invalid character '}'")}
	}
	rep := Run(context.Background(), d)
	if !rep.Failed() {
		t.Fatal("no daemon should fail")
	}
	var out bytes.Buffer
	rep.WriteText(&out)
	for _, w := range []string{
		"FAIL  daemon: no tend daemon answers on /h/tend.sock",
		"        $ tend service install",
		"        $ tend daemon",
		"FAIL  watchers: 2 watcher(s), 2 enabled",
		"skipped: reading watcher bad.json",
		"$ mkdir -p " + filepath.Join(dir, "missing"),
		"some checks failed",
	} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.OK || len(back.Checks) != len(rep.Checks) {
		t.Errorf("JSON round trip: %v %+v", err, back)
	}
}

func TestVersionMismatch(t *testing.T) {
	d := fullDeps(t)
	d.Version = "1.2.4"
	r := checkVersions(d, &api.Status{PID: 1, Version: "1.2.3"})
	if r.Level != Warn || !strings.Contains(strings.Join(r.Fix, " "), "systemctl --user restart tend") {
		t.Errorf("got %+v", r)
	}
}

func TestCountDirs(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a/b/c", "a/d", ".git/objects/aa", "e"} {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "a", "file"), nil, 0o644)
	os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link"))
	n, err := CountDirs(root)
	if err != nil || n != 6 { // root, a, a/b, a/b/c, a/d, e
		t.Errorf("CountDirs = %d, %v; want 6", n, err)
	}
	if _, err := CountDirs(filepath.Join(root, "missing")); err == nil {
		t.Error("a missing folder counted")
	}
}
