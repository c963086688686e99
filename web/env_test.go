//go:build unix

package web_test

import (
	"bytes"
	"context"
	"errors"
	"github.com/tend-agent/tend/daemon/daemontest"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/daemon"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/modeltest"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/runner"
	"github.com/tend-agent/tend/sandbox"
	"github.com/tend-agent/tend/watchers"
	"github.com/tend-agent/tend/web"
)

// env is a real daemon with the real runner, a stand-in Ollama, and the
// viewer on a loopback port.
type env struct {
	home  home.Home
	c     *api.Client
	base  string // http://127.0.0.1:port
	token string
	// cookie is the name of the viewer's token cookie (it carries the port).
	cookie string
	model  *modeltest.Server
}

// modelName is the model the stand-in Ollama serves.
const modelName = "qwen3:8b"

// noKeys is a key store with no keys (the Ollama stand-in needs none).
type noKeys struct{}

func (noKeys) Get(name string) (string, error) { return "", errors.New("no key " + name) }
func (noKeys) Set(string, string) error        { return errors.New("read-only") }
func (noKeys) Delete(string) error             { return nil }

// syncBuffer collects the daemon's log, shown when a test fails.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startDaemon(t *testing.T, script modeltest.Script) *env {
	t.Helper()
	h := home.Home{Dir: t.TempDir()}
	model := modeltest.NewOllama(t, script,
		modeltest.WithModels(modeltest.Model{Name: modelName, Capabilities: []string{"completion", "tools"}}))
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r := runner.New(runner.Config{
		Home:  h,
		Keys:  noKeys{},
		Log:   log,
		Trash: sandbox.FreedesktopTrash{Dir: filepath.Join(t.TempDir(), "Trash")},
		Agent: dispatch.AgentOptions{Timeout: 20 * time.Second},
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("daemon log:\n%s", logs.String())
		}
	})
	d, _ := daemontest.Start(t, daemon.Config{
		Home: h, Log: log, Runner: r, HTTPAddr: "127.0.0.1:0", Version: "test", WebHandler: web.Handler(),
	})
	tok, err := os.ReadFile(h.Token())
	if err != nil {
		t.Fatalf("reading the viewer token: %v", err)
	}
	return &env{home: h, c: api.NewClient(h.Socket()), base: "http://" + d.HTTPAddr(), cookie: d.CookieName(),
		token: strings.TrimSpace(string(tok)), model: model}
}

// addWatcher creates a watcher on folder through the API, as the CLI does.
func (e *env) addWatcher(t *testing.T, name, folder, instructions string, enabled bool) {
	t.Helper()
	_, err := e.c.Add(context.Background(), api.AddRequest{Definition: watchers.Definition{
		Name: name, Instructions: instructions, Enabled: enabled, Path: folder, Recursive: true,
		Responsiveness: "fast", SettleSeconds: 1,
		Provider: watchers.Provider{Kind: "ollama", BaseURL: e.model.URL, Model: modelName},
	}})
	if err != nil {
		t.Fatalf("adding watcher %s: %v", name, err)
	}
}

// waitState polls the API until cond holds for the watcher's view.
func (e *env) waitState(t *testing.T, name, what string, cond func(api.View) bool) api.View {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var last api.View
	for time.Now().Before(deadline) {
		v, err := e.c.Get(context.Background(), name)
		if err == nil {
			last = v
			if cond(v) {
				return v
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("watcher %s: %s did not happen within 15 s (phase %s, reason %q, outcome %q)",
		name, what, last.State.Phase, last.State.Reason, last.State.LastOutcome)
	return last
}

// chromiumPath finds Debian's Chromium (or $TEND_CHROMIUM).
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("TEND_CHROMIUM"), "/usr/bin/chromium"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("no Chromium at /usr/bin/chromium: install it with `apt-get install chromium` (or set TEND_CHROMIUM) to run the viewer tests")
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile; it stops
// when the test ends.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	exe := chromiumPath(t)
	profile, err := os.MkdirTemp("", "tend-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1100, 800),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	tctx, cancelTimeout := context.WithTimeout(bctx, 120*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancelBrowser()
		cancelAlloc()
		// Chromium's helpers may write into the profile for a moment after
		// the browser stops: try again until it is gone.
		for i := 0; i < 50; i++ {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("could not remove the browser profile %s", profile)
	})
	return tctx
}
