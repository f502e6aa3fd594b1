package serve

import (
	"slices"
	"testing"
	"time"
)

// The follower syncs a session once per update it sees, including one that
// lands late with an earlier time (a slow writer's clock was read before
// its commit), and forgets what is older than followBack.
func TestTouchesAreFreshOnce(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	tt := newTouches(t0)
	if got := tt.since(); !got.Equal(t0.Add(-followBack)) {
		t.Fatalf("the first read looks back to %v", got)
	}
	step := func(list map[string]time.Time, want ...string) {
		t.Helper()
		got := tt.fresh(list)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("fresh(%v) = %v, want %v", list, got, want)
		}
	}
	step(map[string]time.Time{"a": t0.Add(time.Second), "b": t0.Add(2 * time.Second)}, "a", "b")
	step(map[string]time.Time{"a": t0.Add(time.Second), "b": t0.Add(2 * time.Second)}) // nothing new
	// c committed late with a time before b's; a changed again.
	step(map[string]time.Time{"a": t0.Add(3 * time.Second), "b": t0.Add(2 * time.Second), "c": t0.Add(1500 * time.Millisecond)}, "a", "c")
	if got := tt.since(); !got.Equal(t0.Add(3*time.Second - followBack)) {
		t.Fatalf("the next read looks back to %v", got)
	}
	step(map[string]time.Time{"d": t0.Add(time.Minute)}, "d")
	if len(tt.seen) != 1 {
		t.Fatalf("%d updates remembered past followBack: %v", len(tt.seen), tt.seen)
	}
}
