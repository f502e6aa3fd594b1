package serve

import (
	"strconv"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
)

// The hub's ring holds what came, up to its bounds in events and in bytes:
// a session with two events holds two (not a ring allocated whole), and
// past a bound the oldest go, the rest still replay in order.
func TestHubGrowsWithinItsBounds(t *testing.T) {
	t.Parallel()
	h := newHub(64, 1<<20)
	h.sink(debate.ErrorOccurred{Err: "a"})
	h.sink(debate.ErrorOccurred{Err: "b"})
	if len(h.buf) > 16 {
		t.Fatalf("two events hold a ring of %d", len(h.buf))
	}
	for i := range 200 {
		h.sink(debate.ErrorOccurred{Err: strconv.Itoa(i)})
	}
	if h.size != 64 || len(h.buf) != 64 {
		t.Fatalf("size %d, ring %d: want 64 (the bound in events)", h.size, len(h.buf))
	}
	batch, _, reset, lost := h.since(0, 1000)
	if !reset || lost != 202-64 || len(batch) != 64 || !strings.Contains(string(batch[63].data), `"199"`) {
		t.Fatalf("reset %v lost %d batch %d", reset, lost, len(batch))
	}
	for i := 1; i < len(batch); i++ {
		if batch[i].seq != batch[i-1].seq+1 {
			t.Fatalf("out of order at %d: %d after %d", i, batch[i].seq, batch[i-1].seq)
		}
	}

	// The bound in bytes: 10 KB events under a 64 KB bound keep six.
	h = newHub(4096, 64<<10)
	big := strings.Repeat("x", 10<<10)
	for range 50 {
		h.sink(debate.ErrorOccurred{Err: big})
	}
	if h.bytes > 64<<10 || h.size < 5 || h.size > 6 {
		t.Fatalf("%d events, %d bytes held (bound 64 KiB)", h.size, h.bytes)
	}
	held := 0
	for i := range h.size {
		held += len(h.buf[(h.start+i)%len(h.buf)].data)
	}
	if held != h.bytes {
		t.Fatalf("counted %d bytes, holds %d", h.bytes, held)
	}
	// One event larger than the bound is still kept (the newest always is).
	h.sink(debate.ErrorOccurred{Err: strings.Repeat("y", 100<<10)})
	if h.size != 1 {
		t.Fatalf("%d events after one over the bound", h.size)
	}
}
