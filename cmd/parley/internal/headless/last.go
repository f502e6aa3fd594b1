package headless

import (
	"sync"

	"github.com/parleyhq/parley/debate"
)

// Last keeps the last event of type T a run emitted, read from the events
// like every other consumer: its Sink is the subscriber.
type Last[T debate.Event] struct {
	mu   sync.Mutex
	last *T
}

// Sink implements debate.Sink.
func (c *Last[T]) Sink(ev debate.Event) {
	if v, ok := ev.(T); ok {
		c.mu.Lock()
		c.last = &v
		c.mu.Unlock()
	}
}

// Get returns the last event of type T, false when none came.
func (c *Last[T]) Get() (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		var zero T
		return zero, false
	}
	return *c.last, true
}
