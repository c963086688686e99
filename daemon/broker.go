package daemon

import (
	"sync"

	"github.com/tend-agent/tend/api"
)

// broker fans status events out to every subscriber (event stream
// clients, the tray, the web page). A slow subscriber loses events rather
// than stalling the engines; it still gets the latest state on its next
// event.
type broker struct {
	mu   sync.Mutex
	subs map[chan api.Event]struct{}
}

func newBroker() *broker { return &broker{subs: map[chan api.Event]struct{}{}} }

func (b *broker) subscribe() (<-chan api.Event, func()) {
	c := make(chan api.Event, 64)
	b.mu.Lock()
	b.subs[c] = struct{}{}
	b.mu.Unlock()
	return c, func() {
		b.mu.Lock()
		if _, ok := b.subs[c]; ok {
			delete(b.subs, c)
			close(c)
		}
		b.mu.Unlock()
	}
}

func (b *broker) publish(ev api.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for c := range b.subs {
		select {
		case c <- ev:
		default:
		}
	}
}
