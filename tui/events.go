package tui

import (
	"sync"
	"time"

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
//
// Batches are delivered at most once a frame (frame, ~33 ms): however many
// deltas arrive, the console updates and draws at most 30 times a second.
// Within a frame the console's side sleeps while the events gather in the
// buffer: one wake-up a frame, not one per delta.
type eventBus struct {
	ch        chan debate.Event
	full      chan struct{} // one token: a sender found the buffer full
	done      chan struct{}
	closeOnce sync.Once

	frame time.Duration // 0: deliver as soon as events are there
	last  time.Time     // when the previous batch was delivered
}

// frameRate is how many frames a second the console draws at most while
// answers stream: text arriving 30 times a second reads as smoothly as at
// 60, for half the rendering and terminal work.
const frameRate = 30

// frameInterval is the console's shortest time between two batches.
const frameInterval = time.Second / frameRate

// ProgramOptions are the options the console's program runs with: its
// renderer draws at the console's frame rate.
func ProgramOptions() []tea.ProgramOption {
	return []tea.ProgramOption{tea.WithFPS(frameRate)}
}

// eventsMsg is a batch of engine events, in emission order.
type eventsMsg []debate.Event

func newEventBus(size int) *eventBus {
	if size <= 0 {
		size = 8192
	}
	return &eventBus{ch: make(chan debate.Event, size), full: make(chan struct{}, 1), done: make(chan struct{}), frame: frameInterval}
}

// Sink is subscribed to the engine.
func (b *eventBus) Sink(ev debate.Event) {
	select {
	case b.ch <- ev:
		return
	default:
	}
	select { // full: wake the console rather than wait for its frame
	case b.full <- struct{}{}:
	default:
	}
	select {
	case b.ch <- ev:
	case <-b.done:
	}
}

// Close releases any engine goroutine waiting on a full buffer.
func (b *eventBus) Close() { b.closeOnce.Do(func() { close(b.done) }) }

// Wait is the command that delivers the next batch of events.
func (b *eventBus) Wait() tea.Msg {
	b.sleepOutFrame()
	var first debate.Event
	select {
	case first = <-b.ch:
	case <-b.done:
		return nil
	}
	batch := newBatch(first)
	defer func() { b.last = time.Now() }()
	for batch.n < maxBatch {
		select {
		case ev := <-b.ch:
			batch.add(ev)
		default:
			return batch.events
		}
	}
	return batch.events
}

// sleepOutFrame waits until a frame has passed since the previous batch,
// while what arrives gathers in the buffer; a full buffer or the end of
// the console cuts it short.
func (b *eventBus) sleepOutFrame() {
	wait := time.Until(b.last.Add(b.frame))
	if b.frame <= 0 || wait <= 0 {
		return
	}
	select {
	case <-b.full: // a stale token: the buffer was drained since
	default:
	}
	if len(b.ch) == cap(b.ch) {
		return
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-b.full:
	case <-b.done:
	}
}

// deltaKey is whose text a delta extends.
type deltaKey struct {
	turn         int
	agent, field string
}

// frameBatch gathers a frame's events. The deltas of one turn's field that
// arrive with no other event after them are merged into one, so a frame
// costs one append per answer, not one per chunk.
type frameBatch struct {
	events eventsMsg
	n      int              // events received
	open   map[deltaKey]int // where each mergeable delta is in events
}

func newBatch(first debate.Event) *frameBatch {
	b := &frameBatch{open: map[deltaKey]int{}}
	b.add(first)
	return b
}

func (b *frameBatch) add(ev debate.Event) {
	b.n++
	d, ok := ev.(debate.TextDelta)
	if !ok {
		clear(b.open) // deltas before an event stay before it
		b.events = append(b.events, ev)
		return
	}
	key := deltaKey{d.Turn, d.Agent, d.Field}
	if i, ok := b.open[key]; ok {
		merged := b.events[i].(debate.TextDelta)
		merged.Text += d.Text
		merged.Raw += d.Raw
		b.events[i] = merged
		return
	}
	b.open[key] = len(b.events)
	b.events = append(b.events, ev)
}
