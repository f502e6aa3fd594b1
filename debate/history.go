package debate

import (
	"slices"
	"sync"
)

// History is a session's one ordered list of entries. Turns that run in
// parallel reserve their place when they start, so the order is the
// configuration order whatever order they finish in.
type History struct {
	mu      sync.RWMutex
	entries []Entry
}

// NewHistory returns a history holding entries (renumbered from 1).
func NewHistory(entries []Entry) *History {
	h := &History{entries: slices.Clone(entries)}
	for i := range h.entries {
		h.entries[i].Turn = i + 1
	}
	return h
}

// Append adds e as the next turn and returns it with its turn number set.
func (h *History) Append(e Entry) Entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	e.Turn = len(h.entries) + 1
	h.entries = append(h.entries, e)
	return e
}

// Update replaces the entry with e.Turn.
func (h *History) Update(e Entry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e.Turn >= 1 && e.Turn <= len(h.entries) {
		h.entries[e.Turn-1] = e
	}
}

// Entries returns a copy of every entry, streaming ones included.
func (h *History) Entries() []Entry {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return slices.Clone(h.entries)
}

// Settled returns the entries a model may see: everything except turns still
// streaming (a parallel round must not see its siblings).
func (h *History) Settled() []Entry {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]Entry, 0, len(h.entries))
	for _, e := range h.entries {
		if e.Status != StatusStreaming {
			out = append(out, e)
		}
	}
	return out
}

// Len is the number of entries.
func (h *History) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.entries)
}

// Get returns the entry with the given turn number.
func (h *History) Get(turn int) (Entry, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if turn < 1 || turn > len(h.entries) {
		return Entry{}, false
	}
	return h.entries[turn-1], true
}
