//go:build !linux && !(darwin && cgo)

package events

import (
	"context"
)

// New returns the polling source: this build has no kernel watcher.
func New(ctx context.Context, opts Options) (Source, error) {
	every := opts.PollInterval
	if every <= 0 {
		every = DefaultPollInterval
	}
	return newPoll(ctx, opts, pollReason("no kernel watcher in this build (built without cgo on macOS?)", every))
}
