package watchers

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Provider says which model server a watcher's runs go to.
type Provider struct {
	Kind    string `json:"kind,omitempty"` // "ollama" (default) or "openai"
	Model   string `json:"model,omitempty"`
	BaseURL string `json:"baseURL,omitempty"`
	KeyName string `json:"keyName,omitempty"`
	// Vision: the OpenAI-compatible model takes pictures, so file_read of
	// an image shows it the picture. (Ollama reports this by itself.)
	Vision bool `json:"vision,omitempty"`
}

// Guards keep a watcher from looping on its own changes.
type Guards struct {
	CooldownSeconds    int `json:"cooldownSeconds,omitempty"`    // default 10, never below 5
	BurstThreshold     int `json:"burstThreshold,omitempty"`     // default 5 fires…
	BurstWindowSeconds int `json:"burstWindowSeconds,omitempty"` // …within 60 s pauses
	MaxFires           int `json:"maxFires,omitempty"`           // 0 = no limit
	MaxFailures        int `json:"maxFailures,omitempty"`        // default 3 consecutive
}

// Tail is a log-tail verdict trigger.
type Tail struct {
	File           string `json:"file"`
	OKPattern      string `json:"okPattern,omitempty"`
	FailPattern    string `json:"failPattern,omitempty"`
	SilenceSeconds int    `json:"silenceSeconds,omitempty"`
}

// Definition is one watcher as stored in watchers/{id}.json. A person may
// edit that file by hand; the daemon applies edits live.
type Definition struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	Instructions   string    `json:"instructions"`
	Enabled        bool      `json:"enabled"`
	Path           string    `json:"path,omitempty"` // empty: a template
	TemplateID     string    `json:"templateId,omitempty"`
	AllowOverlap   bool      `json:"allowOverlap,omitempty"` // may share its folder with another watcher
	Recursive      bool      `json:"recursive"`
	IncludeHidden  bool      `json:"includeHidden"`
	Ignore         []string  `json:"ignore,omitempty"`
	Include        []string  `json:"include,omitempty"`
	Exclude        []string  `json:"exclude,omitempty"`
	Responsiveness string    `json:"responsiveness"`
	SettleSeconds  int       `json:"settleSeconds"`
	MaxIterations  int       `json:"maxIterations"`
	Provider       Provider  `json:"provider"`
	DryRun         bool      `json:"dryRun"`
	AllowHardLinks bool      `json:"allowHardLinks,omitempty"` // the tools may use files with several hard links (off: refused, their content may be shared with a file outside the folder)
	Guards         Guards    `json:"guards"`
	Schedule       string    `json:"schedule,omitempty"`
	Check          string    `json:"check,omitempty"`
	CheckTimeout   int       `json:"checkTimeoutSeconds,omitempty"`
	Tail           *Tail     `json:"tail,omitempty"`
	Skill          string    `json:"skill,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// Tiers are the debounce windows a watcher may choose.
var Tiers = map[string]time.Duration{
	"fast":     200 * time.Millisecond,
	"balanced": time.Second,
	"patient":  3 * time.Second,
	"relaxed":  60 * time.Second,
	"deferred": 300 * time.Second,
	"extended": 600 * time.Second,
}

// TierNames lists the tiers from the quickest to the slowest.
var TierNames = []string{"fast", "balanced", "patient", "relaxed", "deferred", "extended"}

const (
	DefaultTier          = "balanced"
	DefaultSettleSeconds = 2
	DefaultMaxIterations = 5
	maxWaitCap           = 15 * time.Minute
	// MaxInstructionsBytes bounds a watcher's instructions: they go to the
	// model with every pass, and the daemon holds every definition in
	// memory. Longer guidance belongs in a skill file.
	MaxInstructionsBytes = 64 << 10
)

var nameRE = regexp.MustCompile(`^[a-z0-9_-]{1,63}$`)

// ValidName reports whether s may name a watcher.
func ValidName(s string) error {
	if !nameRE.MatchString(s) {
		return fmt.Errorf("invalid name %q: use 1 to 63 lowercase letters, digits, '-' or '_'", s)
	}
	return nil
}

// Tier returns the watcher's debounce window and max wait.
func (d *Definition) Tier() (window, maxWait time.Duration) {
	w, ok := Tiers[d.Responsiveness]
	if !ok {
		w = Tiers[DefaultTier]
	}
	mw := 10 * w
	if mw > maxWaitCap {
		mw = maxWaitCap
	}
	return w, mw
}

// IsTemplate reports whether the definition has no folder.
func (d *Definition) IsTemplate() bool { return d.Path == "" }

// UnmarshalJSON gives a definition without settleSeconds the default
// settle time, while an explicit 0 stays 0 (no settle).
func (d *Definition) UnmarshalJSON(b []byte) error {
	type plain Definition
	p := plain{SettleSeconds: DefaultSettleSeconds}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*d = Definition(p)
	return nil
}

// ApplyDefaults fills the fields a hand-written file may leave out.
func (d *Definition) ApplyDefaults() {
	if d.Responsiveness == "" {
		d.Responsiveness = DefaultTier
	}
	if d.MaxIterations == 0 {
		d.MaxIterations = DefaultMaxIterations
	}
	if d.Provider.Kind == "" {
		d.Provider.Kind = "ollama"
	}
}

// Validate checks the fields that do not need the disk.
func (d *Definition) Validate() error {
	if err := ValidName(d.Name); err != nil {
		return err
	}
	if d.ID == "" {
		return fmt.Errorf("missing id")
	}
	if strings.TrimSpace(d.Instructions) == "" && d.Skill == "" {
		return fmt.Errorf("watcher %s has no instructions: give --instructions TEXT or --skill NAME", d.Name)
	}
	if n := len(d.Instructions); n > MaxInstructionsBytes {
		return fmt.Errorf("the instructions of %s are %d KiB, over the limit of %d KiB: shorten them, or put long guidance in a skill file (TEND_HOME/skills/NAME.md, --skill NAME)",
			d.Name, (n+1023)/1024, MaxInstructionsBytes>>10)
	}
	if _, ok := Tiers[d.Responsiveness]; !ok {
		return fmt.Errorf("unknown responsiveness %q: choose one of %s", d.Responsiveness, strings.Join(TierNames, ", "))
	}
	if d.Path != "" && !filepath.IsAbs(d.Path) {
		return fmt.Errorf("path %q must be absolute", d.Path)
	}
	if d.SettleSeconds < 0 || d.SettleSeconds > 3600 {
		return fmt.Errorf("settleSeconds %d out of range 0..3600", d.SettleSeconds)
	}
	if d.MaxIterations < 1 || d.MaxIterations > 50 {
		return fmt.Errorf("maxIterations %d out of range 1..50", d.MaxIterations)
	}
	switch d.Provider.Kind {
	case "ollama", "openai":
	default:
		return fmt.Errorf("unknown provider %q: use ollama or openai", d.Provider.Kind)
	}
	if err := d.Provider.validBaseURL(); err != nil {
		return err
	}
	if t := d.Tail; t != nil && t.File == "" {
		return fmt.Errorf("okPattern, failPattern and silence read a log file, and %s follows none: add --tail FILE (a log inside the folder), or leave the tail out", d.Name)
	}
	if d.CheckTimeout < 0 {
		return fmt.Errorf("checkTimeoutSeconds %d is negative", d.CheckTimeout)
	}
	if g := d.Guards; g.CooldownSeconds != 0 && g.CooldownSeconds < 5 {
		return fmt.Errorf("cooldownSeconds %d is below the minimum of 5", g.CooldownSeconds)
	}
	if g := d.Guards; g.MaxFires < 0 || g.BurstThreshold < 0 || g.BurstWindowSeconds < 0 || g.MaxFailures < 0 {
		return fmt.Errorf("guards must not be negative (maxFires %d, burstThreshold %d, burstWindowSeconds %d, maxFailures %d)",
			g.MaxFires, g.BurstThreshold, g.BurstWindowSeconds, g.MaxFailures)
	}
	return nil
}

// validBaseURL checks a model server address. Ollama, like OLLAMA_HOST,
// also takes a bare host[:port]; an OpenAI-compatible server needs the
// full http(s) URL of its API.
func (p Provider) validBaseURL() error {
	raw := p.BaseURL
	if raw == "" {
		return nil
	}
	example := "http://127.0.0.1:11434"
	if p.Kind == "openai" {
		example = "https://api.example.com/v1"
	}
	withScheme := raw
	if !strings.Contains(raw, "://") && p.Kind != "openai" {
		withScheme = "http://" + raw
	}
	u, err := url.Parse(withScheme)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || strings.ContainsAny(raw, " \t\r\n") {
		return fmt.Errorf("base URL %q is not a URL: give the server's address like %s", raw, example)
	}
	return nil
}
