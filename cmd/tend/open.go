package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func init() { addCommand(newOpenCommand) }

func newOpenCommand(g *globalOptions) *cobra.Command {
	var printOnly bool
	cmd := &cobra.Command{
		Use:   "open [--print]",
		Short: "Open the history viewer in the browser (or print its link with the token)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext()
			defer cancel()
			link, err := viewerURL(ctx, g)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), link)
			if !printOnly {
				openBrowser(link)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&printOnly, "print", false, "only print the link, do not start a browser")
	return cmd
}

// viewerURL asks the daemon where the viewer listens and adds the token
// from TEND_HOME.
func viewerURL(ctx context.Context, g *globalOptions) (string, error) {
	h, err := g.resolveHome()
	if err != nil {
		return "", err
	}
	c, err := g.client()
	if err != nil {
		return "", err
	}
	st, err := c.Status(ctx)
	if err != nil {
		return "", err
	}
	if st.HTTP == "" {
		for _, p := range st.Problems {
			if strings.HasPrefix(p, "history viewer off") {
				return "", errors.New(p) // it was asked for but could not start: say why
			}
		}
		return "", fmt.Errorf("the daemon runs without the history viewer: restart it with `tend daemon --http 127.0.0.1:7433`")
	}
	b, err := os.ReadFile(h.Token())
	if err != nil {
		return "", fmt.Errorf("reading the viewer token %s: %w (the daemon writes it when it starts the viewer)", h.Token(), err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("the viewer token %s is empty: restart the daemon to write a new one", h.Token())
	}
	u, err := url.Parse(st.HTTP)
	if err != nil {
		return "", fmt.Errorf("the daemon reported an invalid viewer address %q: %w", st.HTTP, err)
	}
	u.RawQuery = url.Values{"token": {tok}}.Encode()
	return u.String(), nil
}

// openBrowser starts the desktop's browser on link. A failure is ignored:
// the link is printed already.
func openBrowser(link string) {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	cmd := exec.Command(name, link)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "tend: could not start a browser (%v): open the link above yourself\n", err)
		return
	}
	// Reap it without holding the command up for long.
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
	}
}
