package doctor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/watchers"
)

// providerTimeout bounds one model server check.
const providerTimeout = 10 * time.Second

// server is one distinct model server the watchers use.
type server struct {
	cfg    dispatch.ProviderConfig
	users  []string // watcher names
	models []string // models they ask for
}

// checkModels contacts every model server the enabled watchers use (the
// default Ollama when there are none) and asks it for a tool-capable
// model, the way a run without --model would.
func checkModels(ctx context.Context, d Deps, defs []*watchers.Definition) []Result {
	servers := map[dispatch.ProviderConfig]*server{}
	for _, def := range defs {
		if def.Path == "" || !def.Enabled {
			continue
		}
		p := def.Provider
		cfg := dispatch.ProviderConfig{Kind: p.Kind, BaseURL: p.BaseURL, KeyName: p.KeyName}
		if cfg.Kind == "" {
			cfg.Kind = dispatch.KindOllama
		}
		s := servers[cfg]
		if s == nil {
			s = &server{cfg: cfg}
			servers[cfg] = s
		}
		s.users = append(s.users, def.Name)
		if p.Model != "" {
			s.models = append(s.models, p.Model)
		}
	}
	if len(servers) == 0 {
		cfg := dispatch.ProviderConfig{Kind: dispatch.KindOllama}
		servers[cfg] = &server{cfg: cfg}
	}
	list := make([]*server, 0, len(servers))
	for _, s := range servers {
		list = append(list, s)
	}
	sort.Slice(list, func(i, j int) bool { return where(d, list[i].cfg) < where(d, list[j].cfg) })
	var out []Result
	for _, s := range list {
		out = append(out, checkServer(ctx, d, s))
	}
	return out
}

// where names a server for people: "ollama at http://…".
func where(d Deps, cfg dispatch.ProviderConfig) string {
	base := cfg.BaseURL
	if base == "" && cfg.Kind == dispatch.KindOllama {
		base = "http://127.0.0.1:11434"
		if d.Getenv != nil && d.Getenv("OLLAMA_HOST") != "" {
			base = d.Getenv("OLLAMA_HOST") + " (OLLAMA_HOST)"
		}
	}
	if base == "" {
		base = dispatch.DefaultOpenAIBaseURL
	}
	return cfg.Kind + " at " + base
}

func checkServer(ctx context.Context, d Deps, s *server) Result {
	r := Result{Check: "model server"}
	name := where(d, s.cfg)
	if len(s.users) > 0 {
		r.Detail = append(r.Detail, "used by "+strings.Join(s.users, ", "))
	}
	if len(s.models) > 0 {
		r.Detail = append(r.Detail, "models asked for: "+strings.Join(dedupe(s.models), ", "))
	}
	if d.NewProvider == nil {
		r.Level, r.Summary = Warn, name+": not checked"
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, providerTimeout)
	defer cancel()
	p, err := d.NewProvider(ctx, s.cfg)
	if err == nil {
		r.Level = OK
		r.Summary = fmt.Sprintf("%s answers; tool-capable model: %s", name, p.Model())
		return r
	}
	r.Level = Fail
	r.Summary = name + ": " + firstLine(err.Error())
	r.Fix = providerFix(s.cfg, err)
	return r
}

// providerFix is what to run for a provider failure. The error's own
// message already explains it; these are the commands.
func providerFix(cfg dispatch.ProviderConfig, err error) []string {
	var pe *dispatch.ProviderError
	if !errors.As(err, &pe) {
		if errors.Is(err, dispatch.ErrKeyNotFound) || strings.Contains(err.Error(), "API key") {
			return []string{"tend key set " + keyName(cfg) + "   # reads the key from standard input"}
		}
		return nil
	}
	ollama := cfg.Kind == dispatch.KindOllama || cfg.Kind == ""
	switch pe.Kind {
	case dispatch.FailUnreachable:
		if ollama {
			if cfg.BaseURL != "" {
				return []string{"ollama serve   # on the host of " + cfg.BaseURL + ", listening where the watcher points"}
			}
			return []string{"ollama serve   # or install it first: curl -fsSL https://ollama.com/install.sh | sh"}
		}
		return []string{"curl -sS " + strings.TrimSuffix(cfg.BaseURL, "/") + "/models   # check the server is up at the watcher's --base-url"}
	case dispatch.FailNoModel, dispatch.FailNoTools, dispatch.FailModelNotFound:
		if ollama {
			return []string{"ollama pull qwen3:8b   # a small tool-capable model"}
		}
		return []string{"tend edit NAME --model MODEL   # pick a model the server lists"}
	case dispatch.FailAuth:
		return []string{"tend key set " + keyName(cfg) + "   # reads the key from standard input"}
	}
	return nil
}

func keyName(cfg dispatch.ProviderConfig) string {
	if cfg.KeyName != "" {
		return cfg.KeyName
	}
	return "openai"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
