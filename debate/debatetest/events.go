package debatetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
)

// EventLog records every event of an engine, for the tests to inspect.
type EventLog struct {
	mu     sync.Mutex
	events []debate.Event
}

func (l *EventLog) Add(ev debate.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
}

func (l *EventLog) All() []debate.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]debate.Event(nil), l.events...)
}

// Tools lists the tool activity events.
func (l *EventLog) Tools() []debate.ToolActivity { return EventsOf[debate.ToolActivity](l) }

// EventsOf lists the events of type T in l, in order. Delivery is
// asynchronous: settle the engine first.
func EventsOf[T debate.Event](l *EventLog) []T {
	var out []T
	for _, ev := range l.All() {
		if x, ok := ev.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

// LastOf is the latest event of type T in l, if any.
func LastOf[T debate.Event](t testing.TB, l *EventLog) T {
	t.Helper()
	all := EventsOf[T](l)
	if len(all) == 0 {
		var zero T
		t.Fatalf("no %s event", zero.EventType())
	}
	return all[len(all)-1]
}

// Settle waits until no exchange runs on e and every subscriber has
// consumed every event so far (Engine.Wait), failing the test after a minute.
func Settle(t testing.TB, e *debate.Engine) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.Wait(ctx); err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

// On returns a channel that receives the first event of e matching match
// (delivered by a subscriber of its own), for tests to wait on instead of
// sleeping.
func On[T debate.Event](e *debate.Engine, match func(T) bool) <-chan T {
	ch := make(chan T, 1)
	var once sync.Once
	e.Subscribe(func(ev debate.Event) {
		if x, ok := ev.(T); ok && (match == nil || match(x)) {
			once.Do(func() { ch <- x })
		}
	})
	return ch
}

// SendControl sends c to e's current mode, failing the test on an error
// (without stopping it: fakes call control from a provider's goroutine).
func SendControl(t testing.TB, e *debate.Engine, c debate.Control) {
	t.Helper()
	if err := e.Control(context.Background(), c); err != nil {
		t.Errorf("Control(%+v): %v", c, err)
	}
}
