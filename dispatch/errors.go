package dispatch

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
)

// Kinds of provider failure.
const (
	FailUnreachable   = "unreachable"     // connection refused, DNS, reset
	FailAuth          = "auth"            // 401/403: the key is missing or wrong
	FailModelNotFound = "model-not-found" // 404 for the model
	FailNoModel       = "no-model"        // no model set and none suitable on the server
	FailNoTools       = "no-tools"        // the model cannot call tools
	FailServer        = "server"          // 5xx or another unexpected status
	FailMalformed     = "malformed"       // the stream could not be read
	FailCanceled      = "canceled"        // the context ended
	FailTooLong       = "too-long"        // the answer passed MaxAnswerText (or another bound)
)

// ProviderError is a failure of the model provider (as opposed to a tool
// error). Callers count consecutive ones to put a watcher in error. Its
// message is meant for the user and never contains an API key.
type ProviderError struct {
	Kind     string
	Provider string
	Msg      string
	Err      error
}

func (e *ProviderError) Error() string {
	if e.Err == nil || e.Kind == FailCanceled {
		return e.Msg
	}
	return e.Msg + " (" + e.Err.Error() + ")"
}

func (e *ProviderError) Unwrap() error { return e.Err }

// IsProviderError reports whether err is (or wraps) a *ProviderError.
func IsProviderError(err error) bool {
	var pe *ProviderError
	return errors.As(err, &pe)
}

// isUnreachable reports whether err is a failure to connect at all.
func isUnreachable(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

func isCanceled(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// redactedError hides a secret that a lower layer may have echoed.
type redactedError struct {
	msg string
	err error
}

func (r *redactedError) Error() string { return r.msg }
func (r *redactedError) Unwrap() error { return r.err }

func redact(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(err.Error(), secret, "[redacted]"), err: err}
}
