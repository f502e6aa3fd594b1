package debate_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/spend"

	"github.com/parleyhq/parley/providers"
)

// heldFake's streams wait until released: their calls stay in flight.
type heldFake struct {
	started chan struct{}
	release chan struct{}
}

func (f *heldFake) Name() string { return "held" }

func (f *heldFake) Stream(ctx context.Context, _ providers.Request) (providers.Stream, error) {
	select {
	case f.started <- struct{}{}:
	default:
	}
	return &heldStream{ctx: ctx, release: f.release}, nil
}

type heldStream struct {
	ctx     context.Context
	release chan struct{}
	done    bool
}

func (s *heldStream) Next() bool {
	if !s.done {
		select {
		case <-s.release:
		case <-s.ctx.Done():
		}
		s.done = true
	}
	return false
}
func (s *heldStream) Delta() string { return "" }
func (s *heldStream) Err() error    { return nil }
func (s *heldStream) Close() error  { return nil }
func (s *heldStream) Result() providers.Result {
	return providers.Result{Usage: providers.Usage{OutputTokens: 10}, FinishReason: "stop", Answered: true}
}

// A spend window refused because another session's call is still in
// flight says so: it holds the window, nothing is spent yet, and the
// sentence does not read "spent $0.0000" as if the window were spent.
func TestARefusalByCallsInFlightSaysSo(t *testing.T) {
	now := time.Date(2026, 11, 25, 21, 10, 0, 0, time.UTC)
	window := spend.NewWindowMeter(0.015, spend.Window{Limit: spend.LimitPerHour, Period: time.Hour, Scope: `user "ada"`}, 0, func() time.Time { return now })
	held := &heldFake{started: make(chan struct{}, 1), release: make(chan struct{})}
	first, _ := pricedEngine(t, "mention", held)
	first.Meter().Under(window)
	second, _ := pricedEngine(t, "mention", &chunkFake{chunks: []string{"no"}})
	second.Meter().Under(window)

	firstDone := make(chan error, 1)
	go func() { firstDone <- first.Submit(context.Background(), "@gemini Go.") }()
	select {
	case <-held.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the first call never started")
	}
	err := second.Submit(context.Background(), "@gemini Also.")
	close(held.release)
	select {
	case <-firstDone:
	case <-time.After(10 * time.Second):
		t.Fatal("the first exchange never ended")
	}
	var ce *spend.CapError
	if !errors.As(err, &ce) || ce.Reason != spend.CapWindow {
		t.Fatalf("second exchange: %v, want the window's refusal", err)
	}
	msg := ce.Error()
	if ce.ReservedUSD <= 0 || ce.SpentUSD != 0 {
		t.Fatalf("refusal holds reserved %v spent %v; want what the call in flight holds and nothing spent", ce.ReservedUSD, ce.SpentUSD)
	}
	if strings.Contains(msg, "spent $0.0000") || !strings.Contains(msg, "has up to $0.0102 of its max_cost_per_hour of $0.015 held by calls still in flight (nothing spent this hour)") {
		t.Fatalf("sentence %q: want the calls in flight named as the reason", msg)
	}
}

// A NaN cap that reaches a meter past every door's check fails closed:
// no call starts, rather than every comparison with NaN letting it through.
func TestANaNCapLetsNoCallThrough(t *testing.T) {
	fake := &chunkFake{chunks: []string{"an answer"}, usage: providers.Usage{OutputTokens: 10}}
	e, _ := pricedEngine(t, "mention", fake)
	e.Meter().SetCap(math.NaN())
	err := e.Submit(context.Background(), "@gemini Go.")
	var ce *spend.CapError
	if !errors.As(err, &ce) {
		t.Fatalf("a NaN cap: %v, want a cap refusal", err)
	}
	if n := len(fake.calls()); n != 0 {
		t.Fatalf("%d calls under a NaN cap, want 0", n)
	}
}
