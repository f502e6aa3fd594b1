package debate_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/parleyhq/parley/debate"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/spend"

	"github.com/parleyhq/parley/providers"
)

// A call that costs more than its worst case and passes a spend window
// stops the run before its next call, naming the window and its reset; the
// next exchange is refused before any call; the next hour starts afresh.
func TestASpendWindowPassedStopsTheNextCall(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 11, 25, 21, 10, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	window := spend.NewWindowMeter(0.10, spend.Window{Limit: spend.LimitPerHour, Period: time.Hour, Scope: `user "ada"`}, 0.02, clock)
	// 10,000 output tokens at $10 per 1M: $0.10, over max_tokens 1000.
	fake := &chunkFake{chunks: []string{"An answer."}, usage: providers.Usage{OutputTokens: 10000}}
	e, events := pricedEngine(t, "mention", fake)
	e.Meter().Under(window)
	err := e.Submit(context.Background(), "@gemini Go.")
	Settle(t, e)
	var ce *spend.CapError
	if !errors.As(err, &ce) || ce.Reason != spend.CapWindow || !ce.Passed || ce.Limit != spend.LimitPerHour {
		t.Fatalf("first exchange: %v, want the window passed", err)
	}
	want := `spend limit reached: user "ada" spent $0.1200 this hour, past max_cost_per_hour of $0.10 — Gemini on priced-model cost $0.1000, over its worst case of $0.0102`
	if !strings.HasPrefix(ce.Error(), want) || !strings.HasSuffix(ce.Error(), "resets at 2026-11-25T22:00:00Z") {
		t.Fatalf("sentence %q", ce.Error())
	}
	if n := len(EventsOf[CapReached](events)); n != 1 {
		t.Fatalf("%d cap_reached events, want 1", n)
	}
	err = e.Submit(context.Background(), "@gemini Again.")
	if !errors.As(err, &ce) || ce.Reason != spend.CapWindow || ce.Passed {
		t.Fatalf("second exchange: %v, want a refusal before any call", err)
	}
	if n := len(fake.calls()); n != 1 {
		t.Fatalf("%d calls, want 1: the window was passed", n)
	}
	mu.Lock()
	now = now.Add(50 * time.Minute)
	mu.Unlock()
	fake.usage = providers.Usage{OutputTokens: 100}
	if err := e.Submit(context.Background(), "@gemini Next hour."); err != nil {
		t.Fatalf("the next hour: %v", err)
	}
	Settle(t, e)
	if n, spent := len(fake.calls()), window.Spent(); n != 2 || spent < 0.000999 || spent > 0.001001 {
		t.Fatalf("next hour: %d calls, window spent %v; want 2 calls and $0.001", n, spent)
	}
}
