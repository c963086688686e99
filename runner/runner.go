// Package runner connects a watcher's engine to the model: for each pass
// it builds the grounded prompt, opens the confined tools on the folder,
// runs the agent loop and records everything in the watcher's chat
// session and the run's effects ledger. It also reads history back and
// undoes runs.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/tend-agent/tend/content"
	"github.com/tend-agent/tend/dispatch"
	"github.com/tend-agent/tend/dispatch/skill"
	"github.com/tend-agent/tend/fingerprint"
	"github.com/tend-agent/tend/internal/clock"
	"github.com/tend-agent/tend/internal/home"
	"github.com/tend-agent/tend/sandbox"
	"github.com/tend-agent/tend/watchers"
	"github.com/tend-agent/tend/watchers/check"
)

// Config sets up a Runner.
type Config struct {
	Home  home.Home
	Keys  dispatch.KeyStore
	Log   *slog.Logger
	Clock clock.Clock
	Trash sandbox.Trash // nil: the OS trash
	Agent dispatch.AgentOptions
	// NewProvider defaults to dispatch.NewProvider.
	NewProvider func(context.Context, dispatch.ProviderConfig, dispatch.KeyStore, *slog.Logger) (dispatch.Provider, error)
	// StepHook is passed to the sandbox (see sandbox.Options.StepHook);
	// crash tests use it. nil in normal use.
	StepHook func(point string)
}

// Runner carries out passes for every watcher of a daemon.
type Runner struct {
	cfg  Config
	mu   sync.Mutex
	runs map[string]*runState
}

type runState struct {
	ledger   *sandbox.Ledger
	content  *content.Cache // what files hold, for all passes of the run
	prompt   int
	complete int
	saved    int // effects in the ledger file on disk
	// ledgerErr is set when a tool could not write the ledger: the run
	// must stop, since nothing it does could be undone.
	ledgerErr error
}

// New returns a Runner.
func New(cfg Config) *Runner {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.NewProvider == nil {
		cfg.NewProvider = dispatch.NewProvider
	}
	if cfg.Keys == nil {
		cfg.Keys = dispatch.Keys(cfg.Log)
	}
	return &Runner{cfg: cfg, runs: map[string]*runState{}}
}

func (r *Runner) history(id string) *dispatch.History {
	h := dispatch.OpenHistory(r.cfg.Home.Sessions(), id)
	h.Clock = r.cfg.Clock.Now
	return h
}

func (r *Runner) runDir(watcherID, runID string) string {
	return filepath.Join(r.cfg.Home.Runs(), watcherID, runID)
}

func (r *Runner) state(def *watchers.Definition, runID string, dry bool) *runState {
	r.mu.Lock()
	defer r.mu.Unlock()
	rs := r.runs[runID]
	if rs == nil {
		rs = &runState{ledger: sandbox.NewLedger(def.ID, runID), content: content.NewCache()}
		rs.ledger.UseJournal(filepath.Join(r.runDir(def.ID, runID), sandbox.JournalFile))
		r.runs[runID] = rs
	}
	return rs
}

// Pass runs one pass of the agent on the watcher's folder.
func (r *Runner) Pass(ctx context.Context, req watchers.PassRequest) watchers.PassResult {
	def := req.Def
	hist := r.history(def.ID)
	rs := r.state(def, req.RunID, req.DryRun)
	changed := dispatch.ChangedFromDiff(req.Changes.Added, req.Changes.Removed, req.Changes.Modified)
	pcfg := dispatch.ProviderConfig{Kind: def.Provider.Kind, Model: def.Provider.Model, BaseURL: def.Provider.BaseURL, KeyName: def.Provider.KeyName,
		Vision: def.Provider.Vision}
	// The provider comes first so the run-start record names the model,
	// also the one picked when the watcher names none.
	prov, perr := r.cfg.NewProvider(ctx, pcfg, r.cfg.Keys, r.cfg.Log.With("watcher", def.Name))
	if req.Pass == 1 {
		model := pcfg.Model
		if perr == nil {
			model = prov.Model()
		}
		hist.Append(dispatch.Record{Type: dispatch.RecRunStart, RunID: req.RunID, WatcherID: def.ID,
			Source: dispatch.SourceWatcher, Trigger: req.Trigger, Changed: changed, DryRun: req.DryRun,
			Provider: pcfg.Kind, Model: model, Pass: 1})
		if perr == nil && pcfg.Model == "" {
			hist.Append(dispatch.Record{Type: dispatch.RecMessage, RunID: req.RunID, Pass: 1, Role: "system",
				Content: "no model set for this watcher; using " + model + ", a tool-capable model the server has"})
		}
	}
	failed := func(reason string) watchers.PassResult {
		hist.Append(dispatch.Record{Type: dispatch.RecMessage, RunID: req.RunID, Pass: req.Pass, Role: "system", Content: "run failed: " + reason})
		return watchers.PassResult{Outcome: dispatch.OutcomeFailed, Reason: reason, Failed: true, Explainer: rs.ledger}
	}
	if perr != nil {
		return failed(perr.Error())
	}
	instructions, err := r.instructions(def, req)
	if err != nil {
		return failed(err.Error())
	}
	in := dispatch.PromptInput{
		Instructions: instructions, Folder: def.Path, Changed: changed,
		FirstPass: req.Pass == 1, CheckOutput: req.Extra, Note: req.Note,
	}
	// A tool that cannot write the ledger stops the run through runCtx.
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	var tools dispatch.Toolbox
	if err := watchers.RootIsLink(def.Path); err != nil {
		return failed(err.Error())
	}
	if _, err := os.ReadDir(def.Path); err != nil {
		in.FolderUnreadable = err
	} else {
		box, err := sandbox.New(def.Path, rs.ledger, sandbox.Options{
			DryRun: req.DryRun, Trash: r.cfg.Trash, BackupDir: r.runDir(def.ID, req.RunID), Now: r.cfg.Clock.Now,
			StepHook:       r.cfg.StepHook,
			AllowHardLinks: def.AllowHardLinks,
			Vision:         dispatch.CanSee(prov),
			// TEND_HOME and the program when the folder holds them, and the
			// folder's .tendignore: the model must not mute its own watcher.
			Deny:    append(r.cfg.Home.Own(def.Path), fingerprint.TendIgnoreFile),
			Content: rs.content,
		})
		if err != nil {
			return failed(err.Error())
		}
		defer box.Close()
		tools = toolbox{b: box, changed: changed, stop: func(err error) {
			r.mu.Lock()
			if rs.ledgerErr == nil {
				rs.ledgerErr = err
			}
			r.mu.Unlock()
			stopRun()
		}}
	}
	opts := r.cfg.Agent
	if opts.Clock == nil {
		opts.Clock = r.cfg.Clock.Now
	}
	tr, _ := dispatch.RunAgent(runCtx, prov, tools, dispatch.BuildPrompt(in), opts)
	hist.AppendTranscript(req.RunID, req.Pass, tr)
	r.mu.Lock()
	lerr := rs.ledgerErr
	r.mu.Unlock()
	r.mu.Lock()
	rs.prompt += tr.PromptTokens
	rs.complete += tr.CompletionTokens
	r.mu.Unlock()
	// A pass that changed nothing (the common "all in order") writes no
	// ledger: there is nothing to undo, and no fsync to wait for.
	if n := len(rs.ledger.Snapshot()); n != rs.saved {
		if err := r.saveLedger(def.ID, req.RunID, rs.ledger); err != nil {
			r.cfg.Log.Error("saving ledger", "err", err)
		} else {
			rs.saved = n
		}
	}
	if lerr != nil {
		return failed("stopped: tend could not write the undo ledger in " + r.cfg.Home.Dir + ": " + ledgerReason(lerr) +
			"; make room there (or make it writable), then run the watcher again")
	}
	return watchers.PassResult{
		Outcome: tr.Outcome, Reason: tr.Reason,
		Failed: tr.Outcome == dispatch.OutcomeFailed, Explainer: rs.ledger,
	}
}

func (r *Runner) instructions(def *watchers.Definition, req watchers.PassRequest) (string, error) {
	if def.Skill == "" {
		return def.Instructions, nil
	}
	text, err := skill.Load(r.cfg.Home.Dir, def.Skill)
	if err != nil {
		return "", err
	}
	var changed []string
	changed = append(changed, req.Changes.Added...)
	changed = append(changed, req.Changes.Modified...)
	changed = append(changed, req.Changes.Removed...)
	text = skill.Expand(text, skill.Vars{Folder: def.Path, Watcher: def.Name, Changed: changed, Timestamp: r.cfg.Clock.Now()})
	if def.Instructions != "" {
		text = def.Instructions + "\n\n" + text
	}
	return text, nil
}

func (r *Runner) saveLedger(watcherID, runID string, l *sandbox.Ledger) error {
	dir := r.runDir(watcherID, runID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return l.Save(filepath.Join(dir, "ledger.json"))
}

// Finish closes the run in the history with its ledger and outcome.
func (r *Runner) Finish(ctx context.Context, sum watchers.RunSummary) {
	r.mu.Lock()
	rs := r.runs[sum.RunID]
	delete(r.runs, sum.RunID)
	r.mu.Unlock()
	hist := r.history(sum.Def.ID)
	var pt, ct int
	if rs != nil {
		// The run is over: its journal needs no recovery. If this cannot
		// be written, the next start-up settles the journal instead.
		if err := rs.ledger.EndJournal(sum.Outcome, sum.Reason); err != nil {
			r.cfg.Log.Error("ending the run's journal", "run", sum.RunID, "err", err)
		}
		effects, _ := json.Marshal(rs.ledger.Snapshot())
		if len(rs.ledger.Snapshot()) > 0 {
			hist.Append(dispatch.Record{Type: dispatch.RecLedger, RunID: sum.RunID, Effects: effects})
		}
		pt, ct = rs.prompt, rs.complete
	}
	hist.Append(dispatch.Record{Type: dispatch.RecRunEnd, RunID: sum.RunID, Outcome: sum.Outcome,
		Reason: sum.Reason, PromptTokens: pt, CompletionTokens: ct, Passes: sum.Passes,
		DurationMs: sum.Ended.Sub(sum.Started).Milliseconds()})
}

// toolbox adapts the sandbox to the agent loop's interface, and adds
// changes_list when the pass has more changes than its prompt lists. stop
// is called when a tool could not write the ledger: the model reads the
// refusal, and the run ends there.
type toolbox struct {
	b       *sandbox.Box
	changed []dispatch.ChangedPath
	stop    func(error)
}

func (t toolbox) Specs() []dispatch.ToolSpec {
	specs := sandbox.Specs()
	out := make([]dispatch.ToolSpec, len(specs), len(specs)+1)
	for i, s := range specs {
		out[i] = dispatch.ToolSpec{Name: s.Name, Description: s.Description, Parameters: s.Parameters}
	}
	if len(t.changed) > dispatch.MaxPromptPaths {
		out = append(out, dispatch.ChangesToolSpec())
	}
	return out
}

func (t toolbox) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	r, err := t.CallResult(ctx, name, args)
	return r.Text, err
}

// CallResult is Call that also hands over the pictures file_read attaches
// for a model that can see.
func (t toolbox) CallResult(ctx context.Context, name string, args json.RawMessage) (dispatch.ToolResult, error) {
	if name == dispatch.ChangesToolName && len(t.changed) > dispatch.MaxPromptPaths {
		out, err := dispatch.ListChanges(t.changed, args)
		return dispatch.ToolResult{Text: out}, err
	}
	r, err := t.b.CallResult(ctx, name, args)
	var le *sandbox.LedgerError
	if errors.As(err, &le) && t.stop != nil {
		t.stop(le)
	}
	out := dispatch.ToolResult{Text: r.Text}
	for _, im := range r.Images {
		out.Images = append(out.Images, dispatch.Image{Path: im.Path, MIME: im.MIME, Width: im.Width, Height: im.Height,
			Bytes: im.Bytes, SHA256: im.SHA256, Data: im.Data})
	}
	return out, err
}

// ledgerReason is the system error behind a ledger failure, such as "no
// space left on device".
func ledgerReason(err error) string {
	var le *sandbox.LedgerError
	if errors.As(err, &le) && le.Err != nil {
		return le.Err.Error()
	}
	return err.Error()
}

// RecordCheck keeps a script check's result in the watcher's session.
// Output that goes to the model is recorded with the run instead.
func (r *Runner) RecordCheck(def *watchers.Definition, res check.Result) {
	rec := dispatch.Record{Type: dispatch.RecCheck, RunID: "check-" + r.cfg.Clock.Now().UTC().Format("20060102T150405Z"),
		Outcome: string(res.Outcome), DurationMs: res.Duration.Milliseconds()}
	if res.Err != nil {
		rec.Reason = res.Err.Error()
	}
	if res.Outcome != check.Output {
		rec.Result = res.Stderr
	}
	r.history(def.ID).Append(rec)
}
