package debate

import (
	"context"
	"strings"
	"sync"
)

// mergeLookback bounds how far back a lagging subscriber's queue is searched
// for a text delta of the same turn to merge a new one into.
const mergeLookback = 16

// subscriber delivers events to one Sink from its own goroutine.
type subscriber struct {
	sink Sink

	mu      sync.Mutex
	queue   []queued
	pending int           // queued plus being delivered
	empty   chan struct{} // made by a waiter while pending > 0, closed when it is 0
	wake    chan struct{} // one token: the queue has something
	closed  bool
}

func newSubscriber(s Sink) *subscriber {
	sub := &subscriber{sink: s, wake: make(chan struct{}, 1)}
	go sub.run()
	return sub
}

// push queues ev. A text delta that finds an undelivered delta of the same
// turn among the newest queued events is appended to it: a lagging consumer
// gets fewer, longer deltas and the same text, never a stalled stream.
func (s *subscriber) push(ev Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if d, ok := ev.(TextDelta); ok {
		for i := len(s.queue) - 1; i >= 0 && i >= len(s.queue)-mergeLookback; i-- {
			q, isDelta := s.queue[i].ev.(TextDelta)
			if !isDelta {
				break // never move text past another kind of event
			}
			if q.Turn != d.Turn || q.Agent != d.Agent {
				continue
			}
			if !s.queue[i].merge(q, d) {
				break // another field of a structured answer: its own delta
			}
			return
		}
	}
	s.queue = append(s.queue, queued{ev: ev})
	s.pending++
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscriber) run() {
	for range s.wake {
		for {
			s.mu.Lock()
			if s.closed || len(s.queue) == 0 {
				s.mu.Unlock()
				break
			}
			ev := s.queue[0].event()
			s.queue[0] = queued{}
			if len(s.queue) == 1 {
				// Keeps the array from its start: a sink that keeps up
				// reuses one slot, where [1:] would wear the array down
				// and allocate a new one every few events.
				s.queue = s.queue[:0]
			} else {
				s.queue = s.queue[1:]
			}
			s.mu.Unlock()
			s.sink(ev)
			s.mu.Lock()
			if !s.closed { // close has released the waiters already
				s.pending--
				if s.pending == 0 {
					s.release()
				}
			}
			s.mu.Unlock()
		}
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return
		}
	}
}

// release wakes the waiters of drained; the caller holds s.mu.
func (s *subscriber) release() {
	if s.empty != nil {
		close(s.empty)
		s.empty = nil
	}
}

// drained waits until everything queued so far has been delivered. The
// channel it waits on is made only then: an event delivered with nobody
// waiting allocates nothing.
func (s *subscriber) drained(ctx context.Context) error {
	s.mu.Lock()
	if s.pending == 0 || s.closed {
		s.mu.Unlock()
		return nil
	}
	if s.empty == nil {
		s.empty = make(chan struct{})
	}
	empty := s.empty
	s.mu.Unlock()
	select {
	case <-empty:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close stops delivery; events still queued are dropped (Wait first to
// drain them) and a Wait in progress is released.
func (s *subscriber) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	s.queue = nil
	s.pending = 0
	s.release()
	close(s.wake)
}

// MergeDelta appends next to into when a reader may see them as one delta:
// the same turn and agent, and not two fields of a structured answer (a
// delta without text, only Raw, joins either side). Text and Raw are both
// kept. Every consumer that merges deltas (subscribers, serve's replay)
// merges with this rule (deltaJoins), so all read the same stream.
func MergeDelta(into, next TextDelta) (TextDelta, bool) {
	if !deltaJoins(into, next) {
		return into, false
	}
	if into.Text == "" {
		into.Field = next.Field
	}
	into.Text += next.Text
	into.Raw += next.Raw
	return into, true
}

// deltaJoins says whether next may be appended to into (MergeDelta).
func deltaJoins(into, next TextDelta) bool {
	return into.Turn == next.Turn && into.Agent == next.Agent &&
		(into.Field == next.Field || into.Text == "" || next.Text == "")
}

// queued is an event waiting for its subscriber's sink. A text delta that
// others were merged into keeps its text in builders until delivery: a
// lagging consumer's merge appends each delta to them instead of copying
// all the text queued so far (MergeDelta's +=), which made a slow reader
// of a long answer quadratic and allocated a string a delta.
type queued struct {
	ev        Event
	text, raw *strings.Builder // nil until a delta is merged into ev
}

// merge appends next to the delta head (q.ev) when MergeDelta would; the
// builders hold the text and raw, event puts them in.
func (q *queued) merge(head, next TextDelta) bool {
	if q.text != nil {
		head.Text = q.text.String() // no copy: the builder's bytes so far
	}
	if !deltaJoins(head, next) {
		return false
	}
	if q.text == nil {
		q.text, q.raw = new(strings.Builder), new(strings.Builder)
		q.text.WriteString(head.Text)
		q.raw.WriteString(head.Raw)
	}
	if head.Text == "" && head.Field != next.Field {
		head.Field = next.Field
		q.ev = head // rare (a delta of raw only came first): boxing allocates
	}
	q.text.WriteString(next.Text)
	q.raw.WriteString(next.Raw)
	return true
}

// event is the event to deliver, merged text included.
func (q queued) event() Event {
	if q.text == nil {
		return q.ev
	}
	d := q.ev.(TextDelta)
	d.Text, d.Raw = q.text.String(), q.raw.String()
	return d
}
