package dispatch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Record types of a chat session file.
const (
	RecRunStart = "run-start"
	RecMessage  = "message"
	RecTool     = "tool"
	RecLedger   = "ledger"
	RecRunEnd   = "run-end"
	RecUndo     = "undo"  // an undo of the run: outcome undone or refused
	RecCheck    = "check" // a script check that did not reach the model
)

// Triggers of a run.
const (
	TriggerChange   = "change"
	TriggerManual   = "manual"
	TriggerSchedule = "schedule"
	TriggerCheck    = "check"
	TriggerTail     = "tail"
	TriggerStartup  = "startup"
)

// Caps on what a session file stores, so it stays small.
const (
	MaxStoredToolResult = 4 << 10
	MaxStoredArgs       = 2 << 10
	MaxStoredMessage    = 32 << 10
)

// SourceWatcher marks sessions that belong to a watcher.
const SourceWatcher = "watcher"

// Record is one line of sessions/{watcherID}.jsonl. Type says which fields
// are used. API keys are never part of a record.
type Record struct {
	Type  string    `json:"type"`
	RunID string    `json:"runID"`
	Time  time.Time `json:"time"`

	// run-start
	WatcherID string        `json:"watcherID,omitempty"`
	Source    string        `json:"source,omitempty"`
	Trigger   string        `json:"trigger,omitempty"`
	Changed   []ChangedPath `json:"changed,omitempty"`
	DryRun    bool          `json:"dryRun,omitempty"`
	Provider  string        `json:"provider,omitempty"`
	Model     string        `json:"model,omitempty"`
	Pass      int           `json:"pass,omitempty"` // which pass of the run a record belongs to (1-based)

	// message
	Role    string `json:"role,omitempty"`
	Content string `json:"content,omitempty"`

	// tool
	Name       string          `json:"name,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	Result     string          `json:"result,omitempty"`
	Error      bool            `json:"error,omitempty"`
	DurationMs int64           `json:"durationMs,omitempty"` // tool and run-end
	// Images are the pictures a tool result showed the model: path, size
	// and hash only, never the picture.
	Images []Image `json:"images,omitempty"`

	// ledger
	Effects json.RawMessage `json:"effects,omitempty"`

	// run-end
	Outcome          string `json:"outcome,omitempty"`
	Reason           string `json:"reason,omitempty"`
	PromptTokens     int    `json:"promptTokens,omitempty"`
	CompletionTokens int    `json:"completionTokens,omitempty"`
	Passes           int    `json:"passes,omitempty"`
}

// History appends to one watcher's chat session file. It is safe for
// concurrent use.
type History struct {
	path      string
	watcherID string
	// Clock stamps records whose Time is zero (default time.Now).
	Clock func() time.Time

	mu       sync.Mutex
	reserved int64 // the file's space is allocated up to here (see reserve)
}

// OpenHistory returns the session of watcherID in dir (TEND_HOME/sessions).
// Nothing is created until the first Append.
func OpenHistory(dir, watcherID string) *History {
	return &History{path: filepath.Join(dir, watcherID+".jsonl"), watcherID: watcherID, Clock: time.Now}
}

// Path is the session file's path.
func (h *History) Path() string { return h.path }

// Append writes rec as one line with a single write call and syncs it.
// Tool output and long texts are capped first.
func (h *History) Append(rec Record) error {
	return h.appendAll([]Record{rec})
}

// encode stamps, completes and caps one record and returns its line.
func (h *History) encode(rec Record) ([]byte, error) {
	if rec.Time.IsZero() {
		rec.Time = h.Clock()
	}
	if rec.Type == RecRunStart {
		if rec.WatcherID == "" {
			rec.WatcherID = h.watcherID
		}
		if rec.Source == "" {
			rec.Source = SourceWatcher
		}
	}
	rec.Result = capText(rec.Result, MaxStoredToolResult)
	rec.Content = capText(rec.Content, MaxStoredMessage)
	if len(rec.Args) > MaxStoredArgs {
		s, _ := json.Marshal(capText(string(rec.Args), MaxStoredArgs))
		rec.Args = s // kept as a JSON string: the cut object is no longer valid JSON
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("encoding %s record for run %s: %w", rec.Type, rec.RunID, err)
	}
	return append(line, '\n'), nil
}

// appendAll writes records with a single write call and one sync, so a
// pass's transcript costs one fsync rather than one per message.
func (h *History) appendAll(recs []Record) error {
	var buf []byte
	for _, rec := range recs {
		line, err := h.encode(rec)
		if err != nil {
			return err
		}
		buf = append(buf, line...)
	}
	if len(buf) == 0 {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("creating the sessions folder: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening session %s: %w", h.path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("appending to session %s: %w", h.path, err)
	}
	size := fi.Size()
	if size > 0 {
		// A last line cut short by a crash must not swallow this record:
		// end it, so the reader skips it as one damaged line.
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err == nil && last[0] != '\n' {
			buf = append([]byte{'\n'}, buf...)
		}
	}
	_, werr := f.Write(buf)
	if werr == nil {
		werr = f.Sync()
	}
	if werr != nil {
		// Whole lines or nothing: a write cut short (the disk filled up)
		// is taken back, so the next record does not join a partial line.
		if terr := f.Truncate(size); terr == nil {
			f.Sync()
		}
		h.reserved = 0
		return fmt.Errorf("appending to session %s: %w", h.path, werr)
	}
	h.reserve(f, size+int64(len(buf)))
	return nil
}

// AppendTranscript writes a finished agent pass: each message and, in
// their place, the tool calls with their (capped) results.
func (h *History) AppendTranscript(runID string, pass int, tr Transcript) error {
	tool := 0
	var recs []Record
	for _, m := range tr.Messages {
		var rec Record
		if m.Role == RoleTool && tool < len(tr.ToolCalls) {
			tc := tr.ToolCalls[tool]
			tool++
			rec = Record{Type: RecTool, RunID: runID, Pass: pass, Name: tc.Name, Args: tc.Args,
				Result: tc.Result, Error: tc.Err, DurationMs: tc.Duration.Milliseconds(), Images: tc.Images}
		} else {
			rec = Record{Type: RecMessage, RunID: runID, Pass: pass, Role: m.Role, Content: m.Content}
			if rec.Content == "" && len(m.ToolCalls) > 0 {
				continue // the tool records that follow say what it asked for
			}
		}
		recs = append(recs, rec)
	}
	return h.appendAll(recs)
}

// Run is one run of a watcher as read back from its session.
type Run struct {
	ID      string
	Start   *Record // nil if the run-start line is missing
	End     *Record // nil while running, or if the daemon died mid-run
	Records []Record
}

// ReadHistory reads a session file into runs, oldest first. A damaged line
// (such as a last line cut short by a crash) is skipped; the file is never
// rewritten. A missing file is an empty history.
func ReadHistory(path string) ([]Run, error) {
	return ReadHistoryWarn(path, nil)
}

// ReadHistoryWarn is ReadHistory that reports each skipped line to warn.
func ReadHistoryWarn(path string, warn func(string)) ([]Run, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening session %s: %w", path, err)
	}
	defer f.Close()
	var (
		runs  []Run
		index = map[string]int{}
		r     = bufio.NewReader(f)
	)
	for lineNo := 1; ; lineNo++ {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var rec Record
			if jerr := json.Unmarshal(line, &rec); jerr != nil || rec.Type == "" {
				if warn != nil {
					what := "a damaged line"
					if err == io.EOF {
						what = "an incomplete last line (cut short, probably by a crash)"
					}
					warn(fmt.Sprintf("%s: skipping %s at line %d", path, what, lineNo))
				}
			} else {
				i, ok := index[rec.RunID]
				if !ok {
					i = len(runs)
					index[rec.RunID] = i
					runs = append(runs, Run{ID: rec.RunID})
				}
				runs[i].Records = append(runs[i].Records, rec)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return runs, fmt.Errorf("reading session %s: %w", path, err)
		}
	}
	for i := range runs {
		for j := range runs[i].Records {
			rec := &runs[i].Records[j]
			if rec.Type == RecRunStart && runs[i].Start == nil {
				runs[i].Start = rec
			}
			if rec.Type == RecRunEnd {
				runs[i].End = rec
			}
		}
	}
	return runs, nil
}

// FindRun returns the run whose id is id or starts with it (when that is
// unambiguous).
func FindRun(runs []Run, id string) (Run, bool) {
	var found []Run
	for _, r := range runs {
		if r.ID == id {
			return r, true
		}
		if id != "" && strings.HasPrefix(r.ID, id) {
			found = append(found, r)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return Run{}, false
}
