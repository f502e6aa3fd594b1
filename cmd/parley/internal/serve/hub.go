package serve

import (
	"strings"
	"sync"

	"github.com/parleyhq/parley/debate"
)

// record is one event of a session as SSE clients get it: its sequence
// number (the SSE id), type and JSON.
type record struct {
	seq  uint64
	typ  string
	data []byte
	// delta is set for text deltas, so a lagging client can merge them.
	delta *debate.TextDelta
}

// hub numbers a session's events and keeps the newest of them, so a client
// that reconnects with Last-Event-ID gets what it missed. It is one engine
// subscriber per session; every SSE client reads the buffer from its own
// goroutine at its own pace (see serveEvents), so a slow client never holds
// the engine or another client: it only falls behind in the buffer, where
// its pending text deltas are merged, and past the buffer's end it is told
// to reload (a reset event).
//
// The ring grows as events come, up to max events and maxBytes of their
// JSON: a session that saw two events holds two, not a ring of thousands
// allocated up front, and a long one never holds more than its bounds.
type hub struct {
	mu       sync.Mutex
	buf      []record // ring of the newest events, oldest first from start
	start    int
	size     int
	bytes    int // the JSON the ring holds
	max      int
	maxBytes int
	next     uint64        // seq of the next event; the first is 1
	changed  chan struct{} // closed and replaced on every event
	closed   bool
	// streaming is the text so far of every turn between its turn_started
	// and turn_finished, as of event next-1: a page rendered mid-stream
	// shows it and its stream resumes right after.
	streaming map[int]*strings.Builder
}

// newHub keeps up to capacity events (at least 16) and maxBytes of their
// JSON (at least the newest event, however large).
func newHub(capacity, maxBytes int) *hub {
	return &hub{max: max(capacity, 16), maxBytes: maxBytes, next: 1, changed: make(chan struct{}), streaming: map[int]*strings.Builder{}}
}

// push keeps rec as the newest event, growing the ring or letting the
// oldest go; the caller holds mu.
func (h *hub) push(rec record) {
	if h.size == len(h.buf) {
		if len(h.buf) < h.max {
			grown := make([]record, min(max(2*len(h.buf), 16), h.max))
			for i := range h.size {
				grown[i] = h.buf[(h.start+i)%len(h.buf)]
			}
			h.buf, h.start = grown, 0
		} else {
			h.dropOldest()
		}
	}
	h.buf[(h.start+h.size)%len(h.buf)] = rec
	h.size++
	h.bytes += len(rec.data)
	for h.bytes > h.maxBytes && h.size > 1 {
		h.dropOldest()
	}
}

func (h *hub) dropOldest() {
	h.bytes -= len(h.buf[h.start].data)
	h.buf[h.start] = record{} // its JSON is garbage now
	h.start = (h.start + 1) % len(h.buf)
	h.size--
}

// sink is the engine subscriber: number the event, keep it, wake readers.
func (h *hub) sink(ev debate.Event) {
	data, err := debate.MarshalEvent(ev)
	if err != nil {
		return
	}
	rec := record{typ: ev.EventType(), data: data}
	if d, ok := ev.(debate.TextDelta); ok {
		rec.delta = &d
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	rec.seq = h.next
	h.next++
	h.follow(ev)
	h.push(rec)
	ch := h.changed
	h.changed = make(chan struct{})
	h.mu.Unlock()
	close(ch)
}

// follow keeps the streaming turns' text in step with the events.
func (h *hub) follow(ev debate.Event) {
	switch ev := ev.(type) {
	case debate.TurnStarted:
		b := &strings.Builder{}
		b.WriteString(ev.Entry.Text)
		h.streaming[ev.Entry.Turn] = b
	case debate.TextDelta:
		if b, ok := h.streaming[ev.Turn]; ok {
			b.WriteString(ev.Text)
		}
	case debate.TurnFinished:
		delete(h.streaming, ev.Entry.Turn)
	}
}

// snapshot is the seq of the newest event with the text every turn had
// streamed up to it: read together, so nothing falls between them.
func (h *hub) snapshot() (last uint64, streaming map[int]string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	streaming = make(map[int]string, len(h.streaming))
	for turn, b := range h.streaming {
		streaming[turn] = b.String()
	}
	return h.next - 1, streaming
}

// last is the seq of the newest event (0 before any).
func (h *hub) last() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.next - 1
}

// since returns the events after seq after (at most max), a channel closed
// when more arrive, and reset when the client must reload: events after
// `after` have already left the buffer (lost says how many), or `after` is
// an id this session has not given yet (from before a server restart).
func (h *hub) since(after uint64, max int) (out []record, changed <-chan struct{}, reset bool, lost uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	changed = h.changed
	if after >= h.next {
		after, reset = h.next-1, true
	}
	oldest := h.next - uint64(h.size) // seq of buf[start]
	if after+1 < oldest {
		lost, reset = oldest-after-1, true
		after = oldest - 1
	}
	for seq := after + 1; seq < h.next && len(out) < max; seq++ {
		out = append(out, h.buf[(h.start+int(seq-oldest))%len(h.buf)])
	}
	return out, changed, reset, lost
}

// close wakes every reader for the last time (the session is going away).
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	close(h.changed)
	h.changed = make(chan struct{})
	close(h.changed) // readers that come later see it closed at once
}

// isClosed reports whether the session went away.
func (h *hub) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// coalesce merges consecutive text deltas in a batch a client is behind
// on, as every subscriber does (debate.MergeDelta): fewer, longer deltas,
// the same text, fields and raw answer. A merged delta carries the seq of
// its last part.
func coalesce(batch []record) []record {
	out := batch[:0:0]
	for _, rec := range batch {
		if n := len(out); n > 0 && rec.delta != nil && out[n-1].delta != nil {
			if merged, ok := debate.MergeDelta(*out[n-1].delta, *rec.delta); ok {
				if data, err := debate.MarshalEvent(merged); err == nil {
					out[n-1] = record{seq: rec.seq, typ: rec.typ, data: data, delta: &merged}
					continue
				}
			}
		}
		out = append(out, rec)
	}
	return out
}
