package dispatch

import (
	"context"
	"fmt"
	"log/slog"
)

// NewProvider builds the provider a watcher asked for. With no model set it
// asks the server for one (and logs which it picked). Failures reaching the
// server are *ProviderError values.
func NewProvider(ctx context.Context, cfg ProviderConfig, keys KeyStore, log *slog.Logger) (Provider, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	switch cfg.Kind {
	case "", KindOllama:
		p, err := newOllama(ctx, cfg, log)
		if err != nil {
			return nil, err
		}
		return p, nil
	case KindOpenAI:
		p, err := newOpenAI(ctx, cfg, keys, log)
		if err != nil {
			return nil, err
		}
		return p, nil
	default:
		return nil, fmt.Errorf("unknown provider %q: use %q or %q", cfg.Kind, KindOllama, KindOpenAI)
	}
}
