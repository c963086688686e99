package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/watchers"
)

func eventRemoved(def *watchers.Definition) api.Event {
	return api.Event{ID: def.ID, Name: def.Name, Removed: true}
}

// routes is the local API. The same handlers serve the unix socket and,
// behind the token check, the loopback listener for the browser.
func (d *Daemon) routes(web bool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/status", d.hStatus)
	mux.HandleFunc("GET /v1/watchers", d.hList)
	mux.HandleFunc("POST /v1/watchers", d.hAdd)
	mux.HandleFunc("GET /v1/watchers/{ref}", d.hGet)
	mux.HandleFunc("PATCH /v1/watchers/{ref}", d.hEdit)
	mux.HandleFunc("DELETE /v1/watchers/{ref}", d.hRemove)
	mux.HandleFunc("POST /v1/watchers/{ref}/pause", d.hPause)
	mux.HandleFunc("POST /v1/watchers/{ref}/resume", d.hResume)
	mux.HandleFunc("POST /v1/watchers/{ref}/run", d.hRun)
	mux.HandleFunc("POST /v1/watchers/{ref}/undo", d.hUndo)
	mux.HandleFunc("POST /v1/watchers/{ref}/detach", d.hDetach)
	mux.HandleFunc("GET /v1/watchers/{ref}/history", d.hHistory)
	mux.HandleFunc("GET /v1/watchers/{ref}/runs/{run}/changes", d.hChanges)
	mux.HandleFunc("POST /v1/attach", d.hAttach)
	mux.HandleFunc("POST /v1/pause-all", d.hPauseAll)
	mux.HandleFunc("POST /v1/resume-all", d.hResumeAll)
	mux.HandleFunc("POST /v1/panic", d.hPanic)
	mux.HandleFunc("GET /v1/events", d.hEvents)
	if web && d.cfg.WebHandler != nil {
		mux.Handle("/", d.cfg.WebHandler)
	}
	return mux
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func (d *Daemon) fail(w http.ResponseWriter, err error) {
	var ue *userError
	code := http.StatusInternalServerError
	if errors.As(err, &ue) {
		code = http.StatusBadRequest
	} else if errors.Is(err, watchers.ErrNotFound) {
		code = http.StatusNotFound
	} else {
		d.log.Error("request failed", "err", err)
	}
	writeJSON(w, code, api.Error{Error: err.Error()})
}

// maxRequestBytes bounds a request body. The largest request is a
// watcher definition, itself capped at watchers.MaxFileBytes; reading an
// unbounded body would let one request take the daemon's memory.
const maxRequestBytes = 4 * watchers.MaxFileBytes

func decode(r *http.Request, v any) error {
	if r.Body == nil {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
	if err != nil {
		return userErrorf("reading the request: %v", err)
	}
	if len(body) > maxRequestBytes {
		return userErrorf("the request is over %d KiB: a watcher definition is at most %d KiB and its instructions at most %d KiB (put long guidance in a skill file)",
			maxRequestBytes>>10, watchers.MaxFileBytes>>10, watchers.MaxInstructionsBytes>>10)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil && err.Error() != "EOF" {
		return userErrorf("invalid request body: %v", err)
	}
	return nil
}

// Views returns every watcher with its latest state, sorted by name.
func (d *Daemon) Views() []api.View {
	d.mu.Lock()
	defs := append([]*watchers.Definition(nil), d.defs...)
	problems := d.problems
	d.mu.Unlock()
	d.stateMu.Lock()
	defer d.stateMu.Unlock()
	out := make([]api.View, 0, len(defs))
	seen := map[string]bool{}
	for _, def := range defs {
		seen[def.ID] = true
		st, ok := d.states[def.ID]
		if !ok {
			st = watchers.State{ID: def.ID, Phase: watchers.PhaseStarting}
			if def.IsTemplate() {
				st.Phase, st.Reason = watchers.PhasePaused, "template: not attached to a folder"
			}
		}
		out = append(out, api.View{Definition: *def, State: st, Badge: st.Phase.Badge()})
	}
	for id, msg := range problems {
		if st, ok := d.states[id]; ok && !seen[id] {
			st.Phase, st.Reason = watchers.PhaseError, msg
			out = append(out, api.View{Definition: watchers.Definition{ID: id, Name: id}, State: st, Badge: "Error"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Definition.Name < out[j].Definition.Name })
	return out
}

func (d *Daemon) view(ref string) (api.View, error) {
	for _, v := range d.Views() {
		if v.Definition.ID == ref || v.Definition.Name == ref {
			return v, nil
		}
	}
	d.mu.Lock()
	def, err := d.find(ref)
	d.mu.Unlock()
	if err != nil {
		return api.View{}, err
	}
	return d.view(def.ID)
}

func (d *Daemon) hStatus(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	var probs []string
	for _, p := range d.problems {
		probs = append(probs, p)
	}
	if d.viewerProblem != "" {
		probs = append(probs, d.viewerProblem)
	}
	d.mu.Unlock()
	sort.Strings(probs)
	writeJSON(w, 200, api.Status{
		PID: os.Getpid(), Version: d.cfg.Version, Home: d.cfg.Home.Dir, Started: d.started,
		HTTP: d.httpURL(), Watchers: d.Views(), Problems: probs, Running: len(d.slots), MaxRuns: cap(d.slots),
	})
}

func (d *Daemon) hList(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, d.Views()) }

func (d *Daemon) hGet(w http.ResponseWriter, r *http.Request) {
	v, err := d.view(r.PathValue("ref"))
	if err != nil {
		d.fail(w, err)
		return
	}
	writeJSON(w, 200, v)
}

func (d *Daemon) hAdd(w http.ResponseWriter, r *http.Request) {
	var req api.AddRequest
	if err := decode(r, &req); err != nil {
		d.fail(w, err)
		return
	}
	def, err := d.add(d.runCtx, req.Definition)
	d.answerView(w, def, err)
}

func (d *Daemon) answerView(w http.ResponseWriter, def *watchers.Definition, err error) {
	if err != nil {
		d.fail(w, err)
		return
	}
	v, err := d.view(def.ID)
	if err != nil {
		d.fail(w, err)
		return
	}
	writeJSON(w, 200, v)
}

func (d *Daemon) hEdit(w http.ResponseWriter, r *http.Request) {
	var patch map[string]any
	if err := decode(r, &patch); err != nil {
		d.fail(w, err)
		return
	}
	def, err := d.edit(d.runCtx, r.PathValue("ref"), patch)
	d.answerView(w, def, err)
}

func (d *Daemon) hRemove(w http.ResponseWriter, r *http.Request) {
	d.answerOK(w, d.remove(d.runCtx, r.PathValue("ref")))
}

func (d *Daemon) answerOK(w http.ResponseWriter, err error) {
	if err != nil {
		d.fail(w, err)
		return
	}
	writeJSON(w, 200, map[string]bool{"ok": true})
}

func (d *Daemon) hPause(w http.ResponseWriter, r *http.Request) {
	d.answerOK(w, d.pause(d.runCtx, r.PathValue("ref")))
}

func (d *Daemon) hResume(w http.ResponseWriter, r *http.Request) {
	var req api.ResumeRequest
	if err := decode(r, &req); err != nil {
		d.fail(w, err)
		return
	}
	d.answerOK(w, d.resume(d.runCtx, r.PathValue("ref"), req))
}

func (d *Daemon) hPauseAll(w http.ResponseWriter, r *http.Request) {
	d.answerOK(w, d.forAll(d.runCtx, d.pause))
}

func (d *Daemon) hResumeAll(w http.ResponseWriter, r *http.Request) {
	d.answerOK(w, d.forAll(d.runCtx, func(ctx context.Context, ref string) error { return d.resume(ctx, ref, api.ResumeRequest{}) }))
}

func (d *Daemon) hPanic(w http.ResponseWriter, r *http.Request) { d.answerOK(w, d.panicAll(d.runCtx)) }

func (d *Daemon) hRun(w http.ResponseWriter, r *http.Request) {
	var req api.RunRequest
	if err := decode(r, &req); err != nil {
		d.fail(w, err)
		return
	}
	_, eng, err := d.engine(r.PathValue("ref"))
	if err != nil {
		d.fail(w, err)
		return
	}
	id, err := eng.RunNow(r.Context(), req.DryRun)
	if err != nil {
		d.fail(w, &userError{err.Error()})
		return
	}
	writeJSON(w, 200, api.RunResponse{RunID: id})
}

func (d *Daemon) hUndo(w http.ResponseWriter, r *http.Request) {
	var req api.UndoRequest
	if err := decode(r, &req); err != nil {
		d.fail(w, err)
		return
	}
	resp, err := d.undo(r.Context(), r.PathValue("ref"), req.RunID)
	if err != nil && len(resp.Conflicts) > 0 {
		// Refused: the body names what changed since the run.
		writeJSON(w, http.StatusConflict, struct {
			api.Error
			api.UndoResponse
		}{api.Error{Error: err.Error()}, resp})
		return
	}
	if err != nil {
		var ue *userError
		if !errors.As(err, &ue) {
			err = &userError{err.Error()}
		}
		d.fail(w, err)
		return
	}
	writeJSON(w, 200, resp)
}

func (d *Daemon) hHistory(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	def, err := d.find(r.PathValue("ref"))
	d.mu.Unlock()
	if err != nil {
		d.fail(w, err)
		return
	}
	raw, err := d.cfg.Runner.History(def)
	if err != nil {
		d.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(raw)
}

// ChangeReader is a Runner that can show what one run changed (the real
// runner can; test stand-ins need not).
type ChangeReader interface {
	Changes(def *watchers.Definition, runID string) (api.RunChanges, error)
}

func (d *Daemon) hChanges(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	def, err := d.find(r.PathValue("ref"))
	d.mu.Unlock()
	if err != nil {
		d.fail(w, err)
		return
	}
	cr, ok := d.cfg.Runner.(ChangeReader)
	if !ok {
		writeJSON(w, http.StatusNotImplemented, api.Error{Error: "this daemon's runner cannot show a run's changes"})
		return
	}
	rc, err := cr.Changes(def, r.PathValue("run"))
	switch {
	case errors.Is(err, os.ErrNotExist):
		writeJSON(w, http.StatusNotFound, api.Error{Error: err.Error()})
	case err != nil:
		d.fail(w, &userError{err.Error()})
	default:
		writeJSON(w, http.StatusOK, rc)
	}
}

// hEvents streams status changes as server-sent events. It starts with
// the current state of every watcher, so a client needs no other call.
func (d *Daemon) hEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		d.fail(w, fmt.Errorf("streaming unsupported"))
		return
	}
	c, cancel := d.events.subscribe()
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	send := func(ev api.Event) {
		b, _ := json.Marshal(ev)
		fmt.Fprintf(w, "data: %s\n\n", b)
		fl.Flush()
	}
	for _, v := range d.Views() {
		send(api.Event{ID: v.Definition.ID, Name: v.Definition.Name, Status: v.State.Phase, Badge: v.Badge, Reason: v.State.Reason, FireCount: v.State.FireCount, Time: v.State.UpdatedAt})
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-d.runCtx.Done():
			return
		case ev, ok := <-c:
			if !ok {
				return
			}
			send(ev)
		}
	}
}
