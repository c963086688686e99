package dispatch

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/zalando/go-keyring"
)

// KeyringService is the service name tend's secrets are stored under.
const KeyringService = "tend"

// EnvAPIKey is read when no keyring is reachable.
const EnvAPIKey = "OPENAI_API_KEY"

// ErrKeyNotFound means neither the keyring nor the environment has the key.
var ErrKeyNotFound = errors.New("API key not found")

// KeyStore keeps API keys by name. Secrets never leave it except through
// Get, and no implementation logs them.
type KeyStore interface {
	Get(name string) (string, error)
	Set(name, secret string) error
	Delete(name string) error
}

// Keys returns the OS keyring store (service "tend"). Get falls back to the
// OPENAI_API_KEY environment variable where no keyring is reachable, saying
// so once in the log.
func Keys(log *slog.Logger) KeyStore {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &keyringStore{log: log, getenv: os.Getenv}
}

type keyringStore struct {
	log    *slog.Logger
	getenv func(string) string
	noted  sync.Once
}

func validKeyName(name string) error {
	if name == "" || strings.ContainsAny(name, " \t\r\n/\\") || len(name) > 64 {
		return fmt.Errorf("invalid key name %q: use letters, digits, '-' or '_' (for example `openai`)", name)
	}
	return nil
}

func (k *keyringStore) Get(name string) (string, error) {
	if err := validKeyName(name); err != nil {
		return "", err
	}
	secret, err := keyring.Get(KeyringService, name)
	if err == nil {
		return secret, nil
	}
	if !errors.Is(err, keyring.ErrNotFound) {
		k.noted.Do(func() {
			k.log.Warn("no OS keyring reachable; reading the API key from "+EnvAPIKey+" instead", "reason", truncate(err.Error(), 160))
		})
	}
	if env := strings.TrimSpace(k.getenv(EnvAPIKey)); env != "" {
		return env, nil
	}
	return "", fmt.Errorf("%w: no key named %s in the keyring and %s is not set: store one with `tend key set %s`", ErrKeyNotFound, name, EnvAPIKey, name)
}

func (k *keyringStore) Set(name, secret string) error {
	if err := validKeyName(name); err != nil {
		return err
	}
	if secret == "" {
		return errors.New("refusing to store an empty key")
	}
	if err := keyring.Set(KeyringService, name, secret); err != nil {
		return unreachableKeyring("storing key "+name, err)
	}
	return nil
}

func (k *keyringStore) Delete(name string) error {
	if err := validKeyName(name); err != nil {
		return err
	}
	err := keyring.Delete(KeyringService, name)
	if errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("%w: no key named %s in the keyring", ErrKeyNotFound, name)
	}
	if err != nil {
		return unreachableKeyring("removing key "+name, err)
	}
	return nil
}

func unreachableKeyring(what string, err error) error {
	return fmt.Errorf("%s: the OS keyring cannot be used (%v): on Linux a Secret Service such as gnome-keyring must be running in your session; otherwise set %s in the environment", what, err, EnvAPIKey)
}
