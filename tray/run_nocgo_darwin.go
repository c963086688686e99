//go:build darwin && !cgo

package tray

import (
	"context"
	"fmt"

	"github.com/tend-agent/tend/api"
)

// Run: the macOS menu bar needs Cocoa, which needs cgo.
func Run(ctx context.Context, c *api.Client, opts Options) error {
	err := fmt.Errorf("%w: this tend was built without cgo; build with CGO_ENABLED=1 for the menu-bar icon", ErrNoTray)
	if opts.Log != nil {
		opts.Log.Warn(err.Error())
	}
	return err
}
