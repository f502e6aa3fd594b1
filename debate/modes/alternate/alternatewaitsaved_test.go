package alternate

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/debatetest"
)

// A run is said to wait at a point (Pending, Waiting, the checkpoint
// event: what the API's awaiting_host reads) only once the point is saved
// and the lease given back. While its screens catch up and its journal is
// flushed, a process killed would leave a session that waits at nothing:
// seen in the suite as a new server showing idle where the killed one had
// said awaiting_host.
func TestAWaitIsSaidOnlyOnceSaved(t *testing.T) {
	t.Parallel()
	e, _, _ := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "alternate", nil)
	// A screen that falls behind: the point waits for it before it is
	// said, and the test looks meanwhile.
	release := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	var reached, atHost []bool
	e.Subscribe(debate.Sink(func(ev debate.Event) {
		once.Do(func() { <-release })
		if _, ok := ev.(debate.CheckpointReached); ok {
			_, pending := e.Pending()
			mu.Lock()
			reached = append(reached, pending)
			mu.Unlock()
		}
	}))
	e.SetHost(checkpoint.HostFunc(func(context.Context, checkpoint.Point) (checkpoint.Answer, error) {
		_, pending := e.Pending()
		mu.Lock()
		atHost = append(atHost, pending)
		mu.Unlock()
		return checkpoint.Answer{Action: checkpoint.Stop}, nil
	}), checkpoint.EachRound)
	e.SetRunAhead(2) // the start, then a point before step 1
	done := make(chan error, 1)
	go func() { done <- e.Submit(context.Background(), "write a Go LRU cache") }()

	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for e.State("checkpoint") == "" { // the point is in memory, its save under way
		select {
		case <-deadline:
			close(release)
			t.Fatal("the run never reached its point")
		case <-tick.C:
		}
	}
	_, pending := e.Pending()
	_, waiting := e.Waiting()
	close(release)
	if pending || waiting {
		t.Errorf("before the point was saved, the run was said to wait (Pending %v, Waiting %v)", pending, waiting)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	mu.Lock()
	defer mu.Unlock()
	if len(reached) != 1 || !reached[0] || len(atHost) != 1 || !atHost[0] {
		t.Errorf("once saved, the point was not said to wait: at its event %v, when the host was asked %v", reached, atHost)
	}
}
