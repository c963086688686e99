package dispatch

import (
	"errors"
	"fmt"
	"io"
)

// Bounds on what a model may send. The model is untrusted input: a broken
// or hostile server could stream without end, and the daemon must neither
// hold that in memory nor pass it on.
const (
	// MaxAnswerText is the most text one model answer may carry; past it
	// the answer is cut off and the run fails.
	MaxAnswerText = 1 << 20
	// MaxToolArgs is the most argument bytes one tool call may carry; a
	// larger call is answered with a tool error and never run.
	MaxToolArgs = 1 << 20
	// maxAnswerArgs bounds the arguments of all tool calls of one answer
	// together; past it the answer is cut off and the run fails.
	maxAnswerArgs = 4 * MaxToolArgs
	// maxStreamEvent bounds one server-sent event of a stream (the OpenAI
	// client gathers an event's data lines until a blank line, so an event
	// that never ends would otherwise grow without limit).
	maxStreamEvent = 8 << 20
)

// errAnswerTooLong marks a stream cut off at one of the bounds.
var errAnswerTooLong = errors.New("answer too long")

// tooLong is the provider error for an answer cut off at a bound.
func tooLong(provider, what string, limit int) *ProviderError {
	return &ProviderError{Kind: FailTooLong, Provider: provider, Err: errAnswerTooLong,
		Msg: fmt.Sprintf("the model's answer was too long: it passed %s of %s, so tend stopped reading it and ended the run (a model that streams without end is broken or hostile; try another model)", sizeText(limit), what)}
}

func sizeText(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// answerBudget counts what one streamed answer has brought so far.
type answerBudget struct {
	provider   string
	text, args int
}

// add counts a piece of text and of tool-call arguments, and fails once
// the answer passes a bound.
func (b *answerBudget) add(text, args int) error {
	b.text += text
	b.args += args
	switch {
	case b.text > MaxAnswerText:
		return tooLong(b.provider, "text", MaxAnswerText)
	case b.args > maxAnswerArgs:
		return tooLong(b.provider, "tool-call arguments", maxAnswerArgs)
	}
	return nil
}

// eventLimiter wraps a text/event-stream body and fails once one event
// (the bytes between blank lines) passes max.
type eventLimiter struct {
	rc       io.ReadCloser
	max      int
	event    int  // bytes of the current event
	lineSeen bool // the current line has a byte other than \r
}

func (l *eventLimiter) Read(p []byte) (int, error) {
	n, err := l.rc.Read(p)
	for _, c := range p[:n] {
		switch c {
		case '\n':
			if !l.lineSeen {
				l.event = 0 // a blank line ends the event
			}
			l.lineSeen = false
		case '\r':
		default:
			l.lineSeen = true
			l.event++
			if l.event > l.max {
				return 0, errAnswerTooLong
			}
		}
	}
	return n, err
}

func (l *eventLimiter) Close() error { return l.rc.Close() }
