package keyringtest

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/dispatch"
)

func TestRealSecretService(t *testing.T) {
	if os.Getenv("TEND_TEST_SECRET_SERVICE") != "1" {
		t.Skip("set TEND_TEST_SECRET_SERVICE=1 (scripts/with-secret-service.sh does) to test against a real Secret Service")
	}
	t.Setenv("OPENAI_API_KEY", "") // the keyring alone must answer
	var logs bytes.Buffer
	keys := dispatch.Keys(slog.New(slog.NewTextHandler(&logs, nil)))
	name := fmt.Sprintf("tend-it-%d", time.Now().UnixNano())
	secret := "sk-it-" + name

	if _, err := keys.Get(name); !errors.Is(err, dispatch.ErrKeyNotFound) {
		t.Fatalf("Get before Set: %v", err)
	}
	if err := keys.Set(name, secret); err != nil {
		t.Fatalf("Set: %v", err)
	}
	t.Cleanup(func() { _ = keys.Delete(name) })
	got, err := keys.Get(name)
	if err != nil || got != secret {
		t.Fatalf("Get = %q, %v", got, err)
	}
	// The secret is really in the Secret Service, not only in this process.
	if path, err := exec.LookPath("secret-tool"); err == nil {
		out, err := exec.Command(path, "lookup", "service", dispatch.KeyringService, "username", name).Output()
		if err != nil || strings.TrimSpace(string(out)) != secret {
			t.Fatalf("secret-tool lookup = %q, %v", out, err)
		}
	}
	if err := keys.Delete(name); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := keys.Get(name); !errors.Is(err, dispatch.ErrKeyNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
	if strings.Contains(logs.String(), "no OS keyring reachable") || strings.Contains(logs.String(), secret) {
		t.Fatalf("unexpected log: %s", logs.String())
	}
}
