package headless

import (
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
)

// Drain gives up on a subscriber that never takes its events once its
// timeout has passed, so a hung consumer cannot hang the command.
func TestDrainHonoursItsTimeout(t *testing.T) {
	t.Parallel()
	e := pacedEngine(t, &pacedProvider{})
	stuck := make(chan struct{})
	defer close(stuck)
	unsubscribe := e.Subscribe(func(debate.Event) { <-stuck })
	defer func() { go unsubscribe() }() // its goroutine is stuck until the test ends
	e.Emit(debate.ErrorOccurred{Err: "one event the subscriber never takes"})
	returned := make(chan struct{})
	go func() {
		drainWithin(e, 50*time.Millisecond)
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(time.Minute):
		t.Fatal("Drain still waits a minute after its 50ms timeout")
	}
}
