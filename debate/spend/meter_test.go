package spend

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
)

// A call is admitted only while its worst case fits beside what was spent
// and what the calls in flight hold; settling replaces the worst case by
// the cost.
func TestReserveAndSettle(t *testing.T) {
	m := NewMeter(0.10, 0.02)
	if ok, _ := m.Reserve(0.05); !ok {
		t.Fatal("0.02 spent + 0.05: refused under a 0.10 cap")
	}
	ok, hit := m.Reserve(0.04) // 0.02 + 0.05 + 0.04 > 0.10
	if ok {
		t.Fatal("0.02 spent + 0.05 held + 0.04: admitted past a 0.10 cap")
	}
	ce := hit.Refusal(CapError{Agent: "a", Model: "m", WorstUSD: 0.04})
	if ce.Reason != CapSession || ce.SpentUSD != 0.02 || ce.ReservedUSD != 0.05 || ce.CapUSD != 0.10 {
		t.Fatalf("refusal %+v", ce)
	}
	if passed, _ := m.Settle(0.05, 0.01, providers.Usage{}); passed {
		t.Fatal("a call that cost under its worst case passed the cap")
	}
	if got := m.Spent(); math.Abs(got-0.03) > 1e-12 {
		t.Fatalf("spent %v, want 0.03", got)
	}
	if ok, _ := m.Reserve(0.07); !ok {
		t.Fatal("0.03 spent + 0.07 = the cap: refused")
	}
	if passed, _ := m.Settle(0.07, 0.08, providers.Usage{PriceUnknown: true}); !passed {
		t.Fatal("spending past the cap was not reported")
	}
	if _, _, unknown, _ := m.Snapshot(); !unknown {
		t.Fatal("an unpriced call's settle left spent as exact")
	}
	if !m.Idle() {
		t.Fatal("every call settled, yet the meter holds one")
	}
}

// A meter under a parent admits a call only when both have room, and
// counts its cost in both; the refusal names the parent's cap.
func TestMeterUnderParent(t *testing.T) {
	parent := NewMeter(0.015, 0)
	a, b := NewMeter(1, 0), NewMeter(1, 0)
	a.Under(parent)
	b.Under(parent)
	if ok, _ := a.Reserve(0.01); !ok {
		t.Fatal("first call refused")
	}
	ok, hit := b.Reserve(0.01)
	if ok {
		t.Fatal("second call admitted past the parent's cap")
	}
	if ce := hit.Refusal(CapError{}); ce.CapUSD != 0.015 {
		t.Fatalf("refusal names cap %v, want the parent's 0.015", ce.CapUSD)
	}
	a.Settle(0.01, 0.01, providers.Usage{})
	if parent.Spent() != 0.01 || a.Spent() != 0.01 || b.Spent() != 0 {
		t.Fatalf("spent parent %v a %v b %v", parent.Spent(), a.Spent(), b.Spent())
	}
	if got := b.Bound(); got != 1 {
		t.Fatalf("b's nearest cap %v, want its own 1", got)
	}
	c := NewMeter(0, 0)
	c.Under(parent)
	if got := c.Bound(); got != 0.015 {
		t.Fatalf("an uncapped meter's bound %v, want the parent's 0.015", got)
	}
}

// A NaN cap fails closed; a negative one is none.
func TestCapClosed(t *testing.T) {
	if ok, _ := NewMeter(math.NaN(), 0).Reserve(1e-9); ok {
		t.Fatal("a NaN cap admitted a call")
	}
	if ok, _ := NewMeter(-1, 0).Reserve(1e6); !ok {
		t.Fatal("a negative cap (none) refused a call")
	}
}

// A window meter forgets what it spent when its window ends, and its
// refusal says which limit, whose, and when it resets.
func TestWindowRolls(t *testing.T) {
	now := time.Date(2026, 11, 25, 21, 10, 0, 0, time.UTC)
	w := Window{Limit: LimitPerHour, Period: time.Hour, Scope: `user "ada"`}
	m := NewWindowMeter(0.05, w, 0.05, func() time.Time { return now })
	full := m.WindowFull()
	if full == nil || full.Reason != CapWindow || !full.ResetsAt.Equal(time.Date(2026, 11, 25, 22, 0, 0, 0, time.UTC)) {
		t.Fatalf("a spent window: %+v", full)
	}
	if msg := full.Error(); !strings.Contains(msg, `user "ada" spent $0.0500 this hour of its max_cost_per_hour of $0.05`) {
		t.Fatalf("sentence %q", msg)
	}
	now = now.Add(50 * time.Minute)
	if m.WindowFull() != nil || m.Spent() != 0 {
		t.Fatalf("a new hour: still full, spent %v", m.Spent())
	}
}

// A cap error reads as a cancel to the modes, and a context ended by one
// says the call was not started.
func TestCapErrorIsACancel(t *testing.T) {
	ce := &CapError{Reason: CapUnpriced, Model: "m", CapUSD: 0.5}
	if !errors.Is(ce, context.Canceled) || !IsCap(errors.Join(errors.New("x"), ce)) {
		t.Fatal("a cap error is not a cancel or not found wrapped")
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ce)
	if got := StopReason(ctx); got != CapStopped {
		t.Fatalf("StopReason %q", got)
	}
	for v, want := range map[float64]string{0.5: "$0.50", 0.035: "$0.035", 2: "$2.00"} {
		if got := CapString(v); got != want {
			t.Errorf("CapString(%v) = %q, want %q", v, got, want)
		}
	}
}
