package tray

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tend-agent/tend/api"
)

// recorder is a daemon API that writes down what it was asked.
type recorder struct {
	calls []string
	fail  error
}

func (r *recorder) rec(s string) error { r.calls = append(r.calls, s); return r.fail }

func (r *recorder) List(context.Context) ([]api.View, error)      { return nil, nil }
func (r *recorder) Events(context.Context, func(api.Event)) error { return nil }
func (r *recorder) Pause(_ context.Context, ref string) error     { return r.rec("pause " + ref) }
func (r *recorder) PauseAll(context.Context) error                { return r.rec("pause-all") }
func (r *recorder) ResumeAll(context.Context) error               { return r.rec("resume-all") }
func (r *recorder) Panic(context.Context) error                   { return r.rec("panic") }
func (r *recorder) Resume(_ context.Context, ref string, req api.ResumeRequest) error {
	reset := req.Reset
	return r.rec(fmt.Sprintf("resume %s reset=%v", ref, reset))
}
func (r *recorder) Run(_ context.Context, ref string, dry bool) (api.RunResponse, error) {
	return api.RunResponse{}, r.rec(fmt.Sprintf("run %s dry=%v", ref, dry))
}

func TestPerform(t *testing.T) {
	opts := func(r *recorder) Options {
		return Options{
			ViewerURL:  func() (string, error) { return "http://127.0.0.1:7433/?token=t", nil },
			OpenURL:    func(u string) error { return r.rec("open " + u) },
			OpenFolder: func(p string) error { return r.rec("folder " + p) },
		}
	}
	w := func(k Kind) Action { return Action{Kind: k, ID: "id1", Name: "inbox", Path: "/in"} }
	cases := []struct {
		act  Action
		opts func(*recorder) Options
		want string
		err  string
	}{
		{w(RunNow), opts, "run id1 dry=false", ""},
		{w(Pause), opts, "pause id1", ""},
		{w(Resume), opts, "resume id1 reset=false", ""},
		{w(ResumeReset), opts, "resume id1 reset=true", ""},
		{w(OpenFolder), opts, "folder /in", ""},
		{w(OpenHistory), opts, "open http://127.0.0.1:7433/?token=t#/w/inbox", ""},
		{Action{Kind: PauseAll}, opts, "pause-all", ""},
		{Action{Kind: ResumeAll}, opts, "resume-all", ""},
		{Action{Kind: Panic}, opts, "panic", ""},
		{Action{Kind: OpenViewer}, opts, "open http://127.0.0.1:7433/?token=t", ""},
		{w(OpenFolder), func(*recorder) Options { return Options{} }, "", "not supported"},
		{w(OpenHistory), func(*recorder) Options {
			return Options{ViewerURL: func() (string, error) { return "", errors.New("the viewer is off") }, OpenURL: func(string) error { return nil }}
		}, "", "the viewer is off"},
		{Action{Kind: Quit}, opts, "", "not handled"},
	}
	for _, c := range cases {
		t.Run(c.act.Kind.String(), func(t *testing.T) {
			r := &recorder{}
			err := perform(context.Background(), r, c.opts(r), c.act)
			if got := strings.Join(r.calls, "; "); got != c.want {
				t.Errorf("calls %q, want %q", got, c.want)
			}
			if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Errorf("err %v, want %q", err, c.err)
			}
		})
	}
	r := &recorder{fail: errors.New("watcher inbox is not running")}
	if err := perform(context.Background(), r, Options{}, w(Pause)); err == nil || err.Error() != "pause inbox: watcher inbox is not running" {
		t.Errorf("a daemon error reads %v", err)
	}
}
