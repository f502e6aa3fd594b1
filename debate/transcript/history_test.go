package transcript

import (
	"runtime"
	"testing"
	"unsafe"
)

// The history's index survives chunk boundaries, out-of-order settling and
// a partly loaded start.
func TestHistoryIndex(t *testing.T) {
	t.Parallel()
	h := NewHistory([]Entry{{Turn: 3, Kind: KindSummary, Status: StatusComplete, Covers: 2, Text: "s"}, {Turn: 10, Kind: KindUser, Status: StatusComplete}})
	for turn := 11; turn <= 3*entryChunk; turn++ {
		status := StatusComplete
		if turn%7 == 0 {
			status = StatusStreaming
		}
		if got := h.Append(Entry{Kind: KindReply, Status: status}); got.Turn != turn {
			t.Fatalf("appended turn %d, want %d", got.Turn, turn)
		}
	}
	if h.Len() != 3*entryChunk || h.Compacted() != 2 || len(h.Tail()) != 3*entryChunk-9 {
		t.Fatalf("len %d compacted %d tail %d", h.Len(), h.Compacted(), len(h.Tail()))
	}
	if _, ok := h.Get(5); ok {
		t.Fatal("a turn never loaded is held")
	}
	if en, ok := h.Get(3); !ok || en.Text != "s" {
		t.Fatal("the loaded summary is lost")
	}
	// Settle the streaming turns newest first: the walk stays in turn order.
	for turn := 3*entryChunk - 3*entryChunk%7; turn > 10; turn -= 7 {
		h.Update(Entry{Turn: turn, Kind: KindReply, Status: StatusComplete})
	}
	prev := h.Len() + 1
	n := 0
	for en := range h.Walk() {
		if en.Turn >= prev {
			t.Fatalf("walk out of order: %d after %d", en.Turn, prev)
		}
		prev = en.Turn
		n++
	}
	if n != 3*entryChunk-8 {
		t.Fatalf("walked %d settled entries", n)
	}
	if u, ok := h.LatestUser(); !ok || u.Turn != 10 {
		t.Fatalf("latest user %+v", u)
	}
}

// A short history holds about what its entries take, not a whole block: a
// server keeps one per live session (an OpenAI-door request is a history
// of two entries; a preallocated block was ~360 KB each).
func TestShortHistoryIsSmall(t *testing.T) {
	const histories = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := make([]*History, histories)
	for i := range kept {
		kept[i] = NewHistory([]Entry{{Kind: KindUser, Text: "q"}})
		kept[i].Append(Entry{Kind: KindReply, Text: "a"})
	}
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / histories
	if limit := 16 * uint64(unsafe.Sizeof(Entry{})); per > limit {
		t.Fatalf("a two-entry history allocated %d bytes (want ≤ %d: 16 entries' worth)", per, limit)
	}
	runtime.KeepAlive(kept)
}
