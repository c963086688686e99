package tray

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/tend-agent/tend/api"
)

// Options are the tray's links to the desktop and to its owner.
type Options struct {
	// ViewerURL gives the history viewer's address with its token; an
	// error (viewer off, no token) disables the viewer items.
	ViewerURL func() (string, error)
	// OpenURL opens a link in the browser; OpenFolder a folder in the
	// file manager. nil disables the items that need them.
	OpenURL    func(string) error
	OpenFolder func(string) error
	// Log gets what the tray has to say (default slog.Default()).
	Log *slog.Logger
	// OnQuit is called when Quit is chosen, before Run returns.
	OnQuit func()
}

// daemonAPI is what the tray asks of the daemon (an *api.Client).
type daemonAPI interface {
	source
	Run(ctx context.Context, ref string, dryRun bool) (api.RunResponse, error)
	Pause(ctx context.Context, ref string) error
	Resume(ctx context.Context, ref string, req api.ResumeRequest) error
	PauseAll(ctx context.Context) error
	ResumeAll(ctx context.Context) error
	Panic(ctx context.Context) error
}

// actionTimeout bounds one menu action's request to the daemon.
const actionTimeout = 30 * time.Second

// perform carries out a menu action (all but Quit, which the loop
// handles). Watchers are addressed by id, so a rename cannot misdirect.
func perform(ctx context.Context, c daemonAPI, o Options, a Action) error {
	ctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	var err error
	switch a.Kind {
	case RunNow:
		_, err = c.Run(ctx, a.ID, false)
	case Pause:
		err = c.Pause(ctx, a.ID)
	case Resume:
		err = c.Resume(ctx, a.ID, api.ResumeRequest{})
	case ResumeReset:
		err = c.Resume(ctx, a.ID, api.ResumeRequest{Reset: true})
	case PauseAll:
		err = c.PauseAll(ctx)
	case ResumeAll:
		err = c.ResumeAll(ctx)
	case Panic:
		err = c.Panic(ctx)
	case OpenFolder:
		if o.OpenFolder == nil {
			return errors.New("opening folders is not supported here")
		}
		err = o.OpenFolder(a.Path)
	case OpenHistory, OpenViewer:
		if o.ViewerURL == nil || o.OpenURL == nil {
			return errors.New("the history viewer cannot be opened from here: run `tend open`")
		}
		u, uerr := o.ViewerURL()
		if uerr != nil {
			return uerr
		}
		if a.Kind == OpenHistory {
			u = HistoryURL(u, a.Name)
		}
		err = o.OpenURL(u)
	default:
		return fmt.Errorf("menu action %v is not handled here", a.Kind)
	}
	if err != nil && a.Name != "" {
		return fmt.Errorf("%s %s: %w", a.Kind, a.Name, err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", a.Kind, err)
	}
	return nil
}

// HistoryURL is the viewer page of one watcher: the viewer's address with
// the fragment "#/w/NAME" (any fragment it had is replaced).
func HistoryURL(viewer, name string) string {
	u, err := url.Parse(viewer)
	if err != nil {
		return viewer
	}
	u.Fragment = "/w/" + name
	u.RawFragment = ""
	return u.String()
}
