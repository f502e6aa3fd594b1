package tui

import (
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate"
)

// maxBatch bounds how many queued events one message carries: enough to
// keep up with three agents streaming fast, small enough that a frame is
// drawn between batches.
const maxBatch = 512

// eventBus carries the engine's events into the program. The sink never
// drops an event (no token may be lost): when the buffer is full it waits
// for the console to catch up, and gives up only once the console is gone.
type eventBus struct {
	ch        chan debate.Event
	done      chan struct{}
	closeOnce sync.Once
}

// eventsMsg is a batch of engine events, in emission order.
type eventsMsg []debate.Event

func newEventBus(size int) *eventBus {
	if size <= 0 {
		size = 8192
	}
	return &eventBus{ch: make(chan debate.Event, size), done: make(chan struct{})}
}

// Sink is subscribed to the engine.
func (b *eventBus) Sink(ev debate.Event) {
	select {
	case b.ch <- ev:
	case <-b.done:
	}
}

// Close releases any engine goroutine waiting on a full buffer.
func (b *eventBus) Close() { b.closeOnce.Do(func() { close(b.done) }) }

// Wait is the command that delivers the next batch of events.
func (b *eventBus) Wait() tea.Msg {
	var first debate.Event
	select {
	case first = <-b.ch:
	case <-b.done:
		return nil
	}
	batch := eventsMsg{first}
	for len(batch) < maxBatch {
		select {
		case ev := <-b.ch:
			batch = append(batch, ev)
		default:
			return batch
		}
	}
	return batch
}
