package transcript

import (
	"iter"
	"sort"
	"sync"
)

// History is a session's one ordered list of entries. Turns that run in
// parallel reserve their place when they start, so the order is the
// configuration order whatever order they finish in.
//
// The history may hold only part of a long session: a resumed session loads
// its latest summaries, the entries a prompt must see and the tail, so the
// older turns stay on disk (the console pages them in). Entries are kept in
// turn order; from tailStart on they are contiguous, before it sparse.
// An index of settled entries lets a prompt be built by walking backwards
// over what a model may see, in time proportional to the window, not the
// session.
type History struct {
	mu        sync.RWMutex
	entries   entryList
	tailStart int   // position in entries from which turns are contiguous
	last      int   // the latest turn number (entries may not hold every turn)
	settled   []int // positions of settled entries, ascending
	summaries []int // positions of complete summary entries, ascending
	lastUser  int   // position of the latest host message (KindUser), -1 for none
}

// NewHistory returns a history holding entries. Entries without turn
// numbers are numbered from 1; entries with turn numbers (a partly loaded
// session) keep them and must be in ascending order.
func NewHistory(entries []Entry) *History {
	h := &History{lastUser: -1}
	numbered := len(entries) > 0 && entries[0].Turn > 0
	for i, en := range entries {
		if !numbered {
			en.Turn = i + 1
		}
		h.add(en)
	}
	// The contiguous tail starts after the last gap in the turn numbers.
	h.tailStart = h.entries.len()
	for i := h.entries.len() - 1; i >= 0; i-- {
		if i > 0 && h.entries.at(i-1).Turn != h.entries.at(i).Turn-1 {
			h.tailStart = i
			break
		}
		h.tailStart = i
	}
	return h
}

// add appends en (its turn set) and indexes it; the caller holds mu or owns h.
func (h *History) add(en Entry) {
	pos := h.entries.len()
	h.entries.append(en)
	h.last = en.Turn
	h.index(pos, Entry{}, false)
}

// index records what the entry at pos is; before is its previous value.
func (h *History) index(pos int, before Entry, existed bool) {
	en := *h.entries.at(pos)
	if en.Status != StatusStreaming && (!existed || before.Status == StatusStreaming) {
		h.settled = insertSorted(h.settled, pos)
	}
	if isSummary(en) && (!existed || !isSummary(before)) {
		h.summaries = insertSorted(h.summaries, pos)
	}
	if en.Kind == KindUser && pos > h.lastUser {
		h.lastUser = pos
	}
}

// insertSorted inserts pos into an ascending list; new positions are nearly
// always at or near the end, so the shift is short.
func insertSorted(list []int, pos int) []int {
	i := len(list)
	for i > 0 && list[i-1] > pos {
		i--
	}
	if i < len(list) && list[i] == pos {
		return list
	}
	list = append(list, 0)
	copy(list[i+1:], list[i:])
	list[i] = pos
	return list
}

func isSummary(en Entry) bool {
	return en.Kind == KindSummary && en.Status == StatusComplete && en.Covers > 0
}

// Append adds e as the next turn and returns it with its turn number set.
func (h *History) Append(e Entry) Entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	e.Turn = h.last + 1
	h.add(e)
	return e
}

// Put adds e keeping the turn number it was given (a journal numbered it)
// and returns it. A number past the next one leaves a gap: the turns in it
// are on disk only, as in a partly loaded session.
func (h *History) Put(e Entry) Entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e.Turn <= h.last {
		e.Turn = h.last + 1 // never behind the history: it is append-only
	}
	if e.Turn != h.last+1 {
		h.tailStart = h.entries.len()
	}
	h.add(e)
	return e
}

// position finds the entry with turn number turn; the caller holds mu.
func (h *History) position(turn int) (int, bool) {
	if h.tailStart < h.entries.len() {
		if first := h.entries.at(h.tailStart).Turn; turn >= first {
			pos := h.tailStart + turn - first
			return pos, pos < h.entries.len()
		}
	}
	pos := sort.Search(h.tailStart, func(i int) bool { return h.entries.at(i).Turn >= turn })
	return pos, pos < h.tailStart && h.entries.at(pos).Turn == turn
}

// Update replaces the entry with e.Turn.
func (h *History) Update(e Entry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	pos, ok := h.position(e.Turn)
	if !ok {
		return
	}
	before := *h.entries.at(pos)
	*h.entries.at(pos) = e
	h.index(pos, before, true)
}

// Entries returns a copy of every entry the history holds, streaming ones
// included. It copies the session: use Walk or Since on hot paths.
func (h *History) Entries() []Entry {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.entries.copyFrom(0)
}

// Settled returns the entries a model may see: everything except turns still
// streaming (a parallel round must not see its siblings). It copies the
// session: use Walk on hot paths.
func (h *History) Settled() []Entry {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]Entry, 0, len(h.settled))
	for _, pos := range h.settled {
		out = append(out, *h.entries.at(pos))
	}
	return out
}

// Walk yields the settled entries newest first, until the caller stops. It
// holds the read lock while it runs: do not append from the loop.
func (h *History) Walk() iter.Seq[*Entry] {
	return func(yield func(*Entry) bool) {
		h.mu.RLock()
		defer h.mu.RUnlock()
		for i := len(h.settled) - 1; i >= 0; i-- {
			if !yield(h.entries.at(h.settled[i])) {
				return
			}
		}
	}
}

// WalkAfter yields the settled entries with turn numbers above after,
// oldest first.
func (h *History) WalkAfter(after int) iter.Seq[*Entry] {
	return func(yield func(*Entry) bool) {
		h.mu.RLock()
		defer h.mu.RUnlock()
		i := sort.Search(len(h.settled), func(i int) bool { return h.entries.at(h.settled[i]).Turn > after })
		for ; i < len(h.settled); i++ {
			if !yield(h.entries.at(h.settled[i])) {
				return
			}
		}
	}
}

// Tail returns copies of the contiguous run of newest entries: the whole
// session, unless it was loaded partly (then the older turns are on disk).
func (h *History) Tail() []Entry {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.entries.copyFrom(h.tailStart)
}

// Since returns copies of the entries after turn after (streaming included).
func (h *History) Since(after int) []Entry {
	h.mu.RLock()
	defer h.mu.RUnlock()
	i := sort.Search(h.entries.len(), func(i int) bool { return h.entries.at(i).Turn > after })
	return h.entries.copyFrom(i)
}

// SummariesWithin returns the newest complete summaries, newest first, while
// their estimated size fits in budget tokens (at least one when any exists).
func (h *History) SummariesWithin(budget int) []Entry {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []Entry
	used := 0
	for i := len(h.summaries) - 1; i >= 0; i-- {
		en := *h.entries.at(h.summaries[i])
		t := EstimateTokens(en.Text)
		if len(out) > 0 && used+t > budget {
			break
		}
		used += t
		out = append(out, en)
	}
	return out
}

// Compacted is the last turn the newest summary covers (0: none).
func (h *History) Compacted() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if len(h.summaries) == 0 {
		return 0
	}
	return h.entries.at(h.summaries[len(h.summaries)-1]).Covers
}

// LatestUser returns the latest host message, if the history holds one.
func (h *History) LatestUser() (Entry, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.lastUser < 0 {
		return Entry{}, false
	}
	return *h.entries.at(h.lastUser), true
}

// Len is the number of turns of the session (the latest turn number), held
// in memory or not.
func (h *History) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.last
}

// Get returns the entry with the given turn number, if the history holds it.
func (h *History) Get(turn int) (Entry, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	pos, ok := h.position(turn)
	if !ok {
		return Entry{}, false
	}
	return *h.entries.at(pos), true
}

// EstimateTokens is a cheap, provider-neutral token estimate (4 bytes a token).
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// entryChunk is how many entries one block of an entryList holds.
const entryChunk = 1024

// entryList is a list of entries in blocks of at most entryChunk: a turn
// costs the same in a session of any length (a plain slice would copy the
// whole session as it grows), since only the newest block ever moves. A
// block grows by doubling up to entryChunk rather than being allocated
// whole: a two-entry history (each OpenAI-door request) holds two entries,
// not the ~360 KB of a full block.
type entryList struct {
	chunks [][]Entry
	n      int
}

// firstBlock is the capacity a new block starts with.
const firstBlock = 4

func (l *entryList) len() int { return l.n }

func (l *entryList) at(i int) *Entry { return &l.chunks[i/entryChunk][i%entryChunk] }

func (l *entryList) append(en Entry) {
	if l.n%entryChunk == 0 {
		l.chunks = append(l.chunks, make([]Entry, 0, firstBlock))
	}
	c := &l.chunks[len(l.chunks)-1]
	if len(*c) == cap(*c) { // double, never past one block
		grown := make([]Entry, len(*c), min(2*cap(*c), entryChunk))
		copy(grown, *c)
		*c = grown
	}
	*c = append(*c, en)
	l.n++
}

// copyFrom returns copies of the entries from position i on.
func (l *entryList) copyFrom(i int) []Entry {
	out := make([]Entry, 0, max(l.n-i, 0))
	for ; i < l.n; i++ {
		out = append(out, *l.at(i))
	}
	return out
}
