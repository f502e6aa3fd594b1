package debate_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/providers"
)

// A streamed chunk costs the engine about one allocation (the event, boxed
// once for every subscriber), whatever the answer's length, with one
// subscriber keeping up and one lagging the whole answer (it merges the
// deltas). Counted, not timed: the process's allocations for an answer of
// 11,000 chunks less those for 1,000, per chunk (issue 50: headless
// streaming and the door stream every chunk through this path; a delta
// merged by copying the text queued so far, or a write per chunk, shows
// here).
func TestAStreamedChunkAllocatesLittle(t *testing.T) { // not parallel: it counts the process's allocations
	allocsFor := func(words int) uint64 {
		fakes := map[string]*debatetest.Fake{"chatgpt": {Agent: "chatgpt",
			Answer: func(providers.Request) string { return strings.Repeat("w ", words) }}}
		e, _ := debatetest.NewSpineEngine(known, fakes)
		release := make(chan struct{})
		e.Subscribe(func(debate.Event) { <-release }) // lags until the exchange is over
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.Mallocs
		if err := e.Submit(context.Background(), "@chatgpt count"); err != nil {
			t.Fatal(err)
		}
		close(release)
		debatetest.Settle(t, e)
		runtime.ReadMemStats(&ms)
		return ms.Mallocs - before
	}
	allocsFor(100) // warm: pools, lazily built tables
	short, long := allocsFor(1000), allocsFor(11000)
	perChunk := float64(int64(long)-int64(short)) / 10000
	t.Logf("%.2f allocations a streamed chunk (%d for 1,000 chunks, %d for 11,000)", perChunk, short, long)
	if perChunk > 2 {
		t.Errorf("%.2f allocations a streamed chunk, want at most 2 (the old merge made 5)", perChunk)
	}
}
