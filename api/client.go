package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// ErrNoDaemon means nothing answered on the socket.
var ErrNoDaemon = errors.New("no tend daemon is running")

// Client talks to the daemon.
type Client struct {
	hc    *http.Client
	base  string
	token string
	sock  string
}

// NewClient returns a client for the daemon listening on the unix socket.
func NewClient(socket string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
	}
	return &Client{hc: &http.Client{Transport: tr}, base: "http://tend", sock: socket}
}

// NewHTTPClient returns a client for the loopback TCP listener.
func NewHTTPClient(baseURL, token string) *Client {
	return &Client{hc: http.DefaultClient, base: strings.TrimRight(baseURL, "/"), token: token}
}

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if c.sock != "" {
			return fmt.Errorf("%w (nothing answers on %s): start it with `tend daemon` or `tend service install`", ErrNoDaemon, c.sock)
		}
		return fmt.Errorf("%w at %s: %v", ErrNoDaemon, c.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var e Error
		data, _ := io.ReadAll(resp.Body)
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			return errors.New(e.Error)
		}
		return fmt.Errorf("daemon answered %s", resp.Status)
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func esc(ref string) string { return url.PathEscape(ref) }

func (c *Client) Status(ctx context.Context) (Status, error) {
	var s Status
	return s, c.do(ctx, "GET", "/v1/status", nil, &s)
}

func (c *Client) List(ctx context.Context) ([]View, error) {
	var v []View
	return v, c.do(ctx, "GET", "/v1/watchers", nil, &v)
}

func (c *Client) Get(ctx context.Context, ref string) (View, error) {
	var v View
	return v, c.do(ctx, "GET", "/v1/watchers/"+esc(ref), nil, &v)
}

func (c *Client) Add(ctx context.Context, req AddRequest) (View, error) {
	var v View
	return v, c.do(ctx, "POST", "/v1/watchers", req, &v)
}

// Edit merges the JSON object patch into the watcher's definition.
func (c *Client) Edit(ctx context.Context, ref string, patch map[string]any) (View, error) {
	var v View
	return v, c.do(ctx, "PATCH", "/v1/watchers/"+esc(ref), patch, &v)
}

func (c *Client) Remove(ctx context.Context, ref string) error {
	return c.do(ctx, "DELETE", "/v1/watchers/"+esc(ref), nil, nil)
}

func (c *Client) Pause(ctx context.Context, ref string) error {
	return c.do(ctx, "POST", "/v1/watchers/"+esc(ref)+"/pause", struct{}{}, nil)
}

func (c *Client) Resume(ctx context.Context, ref string, req ResumeRequest) error {
	return c.do(ctx, "POST", "/v1/watchers/"+esc(ref)+"/resume", req, nil)
}

func (c *Client) PauseAll(ctx context.Context) error {
	return c.do(ctx, "POST", "/v1/pause-all", struct{}{}, nil)
}

func (c *Client) ResumeAll(ctx context.Context) error {
	return c.do(ctx, "POST", "/v1/resume-all", struct{}{}, nil)
}

// Panic pauses every watcher and cancels every run in flight.
func (c *Client) Panic(ctx context.Context) error {
	return c.do(ctx, "POST", "/v1/panic", struct{}{}, nil)
}

func (c *Client) Run(ctx context.Context, ref string, dryRun bool) (RunResponse, error) {
	var r RunResponse
	return r, c.do(ctx, "POST", "/v1/watchers/"+esc(ref)+"/run", RunRequest{DryRun: dryRun}, &r)
}

func (c *Client) Undo(ctx context.Context, ref, runID string) (UndoResponse, error) {
	var r UndoResponse
	return r, c.do(ctx, "POST", "/v1/watchers/"+esc(ref)+"/undo", UndoRequest{RunID: runID}, &r)
}

func (c *Client) Attach(ctx context.Context, req AttachRequest) (View, error) {
	var v View
	return v, c.do(ctx, "POST", "/v1/attach", req, &v)
}

func (c *Client) Detach(ctx context.Context, ref string) (View, error) {
	var v View
	return v, c.do(ctx, "POST", "/v1/watchers/"+esc(ref)+"/detach", struct{}{}, &v)
}

// History returns the watcher's session as raw JSON (the dispatch
// package's run records).
func (c *Client) History(ctx context.Context, ref string) (json.RawMessage, error) {
	var raw json.RawMessage
	return raw, c.do(ctx, "GET", "/v1/watchers/"+esc(ref)+"/history", nil, &raw)
}

// Events follows the daemon's event stream until ctx ends or the stream
// breaks, calling fn for each event.
func (c *Client) Events(ctx context.Context, fn func(Event)) error {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/v1/events", nil)
	if err != nil {
		return err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoDaemon, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("event stream: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		var ev Event
		if err := json.Unmarshal([]byte(line[6:]), &ev); err == nil {
			fn(ev)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return sc.Err()
}

// Changes returns what run runID of the watcher changed: its before and
// after trees and the text of the files it edited or overwrote.
func (c *Client) Changes(ctx context.Context, ref, runID string) (RunChanges, error) {
	var rc RunChanges
	return rc, c.do(ctx, "GET", "/v1/watchers/"+esc(ref)+"/runs/"+esc(runID)+"/changes", nil, &rc)
}
