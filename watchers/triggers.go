package watchers

// Triggers gathers what fires a watcher besides folder changes (schedules,
// script checks, log tails) and the path filters on change sets. A nil
// *Triggers means a plain folder watcher; every method is nil-safe.
type Triggers struct {
	c chan triggerEvent
}

// triggerEvent is a schedule, check or tail result ready to dispatch.
type triggerEvent struct {
	kind  string // schedule, check, tail
	note  string
	extra string
}

func (t *Triggers) channel() <-chan triggerEvent {
	if t == nil {
		return nil
	}
	return t.c
}

func (t *Triggers) onPaths(e *Engine, paths []string) {}

func (t *Triggers) armNext(e *Engine) {}

// Close stops the trigger's timers and followers.
func (t *Triggers) Close() {}

func (t *Triggers) filter(paths []string) []string { return paths }

func (e *Engine) onTrigger(ev triggerEvent) {}
