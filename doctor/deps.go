package doctor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/packaging"
	"github.com/tend-agent/tend/watchers"
)

// probeKey is a key name no one uses: looking it up tells whether the
// keyring answers without touching a real secret.
const probeKey = "tend-doctor-probe-not-a-key"

// System is the real machine as the doctor sees it.
func System(h home.Home, version string, log *slog.Logger) Deps {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := api.NewClient(h.Socket())
	exe, _ := os.Executable()
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return Deps{
		Version: version, GoVer: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		OSName:       osName(),
		Socket:       h.Socket(),
		Status:       c.Status,
		LoadWatchers: (&watchers.Store{Dir: h.Watchers()}).LoadAll,
		ReadFile:     os.ReadFile,
		CountDirs:    CountDirs,
		Getenv:       os.Getenv,
		NewProvider: func(ctx context.Context, cfg dispatch.ProviderConfig) (dispatch.Provider, error) {
			return dispatch.NewProvider(ctx, cfg, dispatch.Keys(log), log)
		},
		KeyringProbe: keyringProbe,
		Service: func(ctx context.Context) (packaging.Status, error) {
			env, err := packaging.SystemEnv()
			if err != nil {
				return packaging.Status{}, err
			}
			return packaging.NewManager(runtime.GOOS, env).Status(ctx)
		},
		Executable: exe,
	}
}

// keyringProbe looks up a key that does not exist. On Linux it first
// makes sure a session bus exists, so the lookup cannot start one.
func keyringProbe() error {
	if runtime.GOOS == "linux" && os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		sock := filepath.Join("/run/user", strconv.Itoa(os.Getuid()), "bus")
		if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
			sock = filepath.Join(d, "bus")
		}
		if fi, err := os.Stat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
			return errors.New("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service")
		}
	}
	_, err := keyring.Get(dispatch.KeyringService, probeKey)
	if err == nil || errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return fmt.Errorf("the keyring cannot be used: %w", err)
}

func osName() string {
	switch runtime.GOOS {
	case "linux":
		b, err := os.ReadFile("/etc/os-release")
		if err != nil {
			return ""
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
				return strings.Trim(v, `"`)
			}
		}
	case "darwin":
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "sw_vers", "-productVersion").Output()
		if err == nil {
			return "macOS " + strings.TrimSpace(string(out))
		}
	}
	return ""
}
