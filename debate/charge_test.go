package debate_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	. "github.com/parleyhq/parley/debate"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
)

// chunkFake streams chunks one delta at a time, then ends with end (nil: a
// normal end reporting usage). It logs every request.
type chunkFake struct {
	chunks []string
	end    error
	usage  providers.Usage

	mu   sync.Mutex
	reqs []providers.Request
}

func (f *chunkFake) Name() string { return "fake" }

func (f *chunkFake) Stream(_ context.Context, req providers.Request) (providers.Stream, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	return &chunkStream{f: f, next: -1}, nil
}

func (f *chunkFake) calls() []providers.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]providers.Request(nil), f.reqs...)
}

type chunkStream struct {
	f    *chunkFake
	next int
}

func (s *chunkStream) Next() bool {
	s.next++
	return s.next < len(s.f.chunks)
}
func (s *chunkStream) Delta() string { return s.f.chunks[s.next] }
func (s *chunkStream) Err() error {
	if s.next >= len(s.f.chunks) {
		return s.f.end
	}
	return nil
}
func (s *chunkStream) Close() error { return nil }
func (s *chunkStream) Result() providers.Result {
	if s.f.end != nil {
		return providers.Result{Answered: true} // cut: no usage came
	}
	return providers.Result{Usage: s.f.usage, FinishReason: "stop", Answered: true}
}

// pricedEngine seats every agent of modeConfig on one model at $1 per 1M
// input and $10 per 1M output tokens, max_tokens 1,000, all on p.
func pricedEngine(t *testing.T, mode string, p providers.Provider) (*Engine, *EventLog) {
	t.Helper()
	cfg := ModeConfig(known)
	one, ten := 1.0, 10.0
	cfg.Models = providers.Catalogue{"priced-model": {Input: &one, Output: &ten}}
	var agents []*Agent
	for i := range cfg.Agents {
		cfg.Agents[i].Model = "priced-model"
		cfg.Agents[i].MaxTokens = 1000
		agents = append(agents, &Agent{AgentSpec: cfg.Agents[i], Provider: p})
	}
	e, err := NewEngine(cfg, agents, mode)
	if err != nil {
		t.Fatal(err)
	}
	events := &EventLog{}
	e.Subscribe(events.Add)
	return e, events
}

// A cut stream is charged its prompt and what streamed, marked estimated,
// and the spend counts toward the cap: repeated cut answers stop at the
// call whose worst case no longer fits.
func TestCutStreamsAreChargedAndReachTheCap(t *testing.T) {
	chunks := make([]string, 400)
	for i := range chunks {
		chunks[i] = " word" // 2,000 bytes in 400 chunks: 500 tokens
	}
	fake := &chunkFake{chunks: chunks, end: &providers.Error{Kind: providers.KindNetwork, Message: "connection closed before the answer was complete"}}
	e, events := pricedEngine(t, "mention", fake)
	e.SetCap(0.05)
	var err error
	asked := 0
	for asked < 20 && !spend.IsCap(err) {
		err = e.Submit(context.Background(), "@gemini Explain the trade-off in detail.")
		asked++
	}
	Settle(t, e)
	if !spend.IsCap(err) {
		t.Fatalf("20 cut answers never reached the $0.05 cap (last error %v)", err)
	}
	var charged []transcript.Entry
	for _, en := range e.History().Entries() {
		if en.IsAgentTurn() && en.Status == transcript.StatusPartial {
			charged = append(charged, en)
		}
	}
	calls := fake.calls()
	if len(charged) != len(calls) {
		t.Fatalf("%d calls made, %d charged turns", len(calls), len(charged))
	}
	spent := 0.0
	for i, en := range charged {
		in := providers.EstimatePromptTokens(calls[i])
		if en.Usage.OutputTokens != 500 || en.Usage.InputTokens != in || !en.Usage.Estimated {
			t.Fatalf("turn %d usage %+v, want %d input (the prompt at 2 bytes a token) and 500 output, estimated", en.Turn, en.Usage, in)
		}
		if want := float64(in)/1e6 + 500*10/1e6; !near(en.Cost, want) {
			t.Fatalf("turn %d cost %v, want %v", en.Turn, en.Cost, want)
		}
		spent += en.Cost
	}
	// The refused call is the first whose worst case (its prompt plus
	// 1,000 output tokens, $0.01 and a little) no longer fits beside the
	// spend; every earlier one fitted.
	worst := func(req providers.Request) float64 {
		return float64(providers.EstimatePromptTokens(req))/1e6 + 1000*10/1e6
	}
	before := spent - charged[len(charged)-1].Cost
	if before+worst(calls[len(calls)-1]) > 0.05 {
		t.Fatalf("the last call made should have fitted: spent %v before it", before)
	}
	var ce *spend.CapError
	if !errors.As(err, &ce) || ce.Passed || !near(ce.SpentUSD, spent) || spent+ce.WorstUSD <= 0.05 || ce.WorstUSD < 0.01 {
		t.Fatalf("refusal %+v after %v spent: its worst case should not fit", ce, spent)
	}
	if got := e.Meter().Spent(); !near(got, spent) {
		t.Fatalf("meter spent %v, turns cost %v", got, spent)
	}
	if s := lastSpend(events); !s.Estimated {
		t.Fatalf("spend %+v not marked estimated", s)
	}
}

func lastSpend(l *EventLog) SpendUpdated {
	all := EventsOf[SpendUpdated](l)
	if len(all) == 0 {
		return SpendUpdated{}
	}
	return all[len(all)-1]
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// A provider reporting far more than max_tokens allows passes the cap in
// one call: the turn keeps its answer with a warning naming the model and
// the figures, the exchange stops at the cap (Submit returns it, exit 4
// for the headless commands) and the next call is never made.
func TestOverReportedUsageStopsBeforeTheNextCall(t *testing.T) {
	fake := &chunkFake{chunks: []string{"A short", " answer."}, usage: providers.Usage{InputTokens: 5_000_000, OutputTokens: 5_000_000}}
	e, events := pricedEngine(t, "alternate", fake)
	e.SetCap(0.10)
	err := e.Submit(context.Background(), "Write the parser.")
	Settle(t, e)
	var ce *spend.CapError
	if !errors.As(err, &ce) || !ce.Passed {
		t.Fatalf("Submit = %v, want the passed cap", err)
	}
	if n := len(fake.calls()); n != 1 {
		t.Fatalf("%d calls made, want the one that passed the cap", n)
	}
	for _, want := range []string{"spent $55.0000", "past the cap of $0.10", "priced-model cost $55.0000", "no further call starts"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("cap message %q lacks %q", err, want)
		}
	}
	var first transcript.Entry
	for _, en := range e.History().Entries() {
		if en.IsAgentTurn() {
			first = en
			break
		}
	}
	if first.Status != transcript.StatusComplete || !strings.Contains(first.Warning, "priced-model reported 5000000 input and 5000000 output tokens, $55.0000") {
		t.Fatalf("first turn %s, warning %q", first.Status, first.Warning)
	}
	var warned bool
	for _, ev := range EventsOf[ErrorOccurred](events) {
		warned = warned || (ev.Kind == KindOverWorstCase && ev.Err == first.Warning)
	}
	if !warned || len(EventsOf[CapReached](events)) != 1 {
		t.Fatalf("warning shown %v, cap_reached events %d (want 1)", warned, len(EventsOf[CapReached](events)))
	}
	// The next exchange is refused before any call.
	if err := e.Submit(context.Background(), "Go on."); !spend.IsCap(err) {
		t.Fatalf("next exchange: %v, want a cap refusal", err)
	}
	if n := len(fake.calls()); n != 1 {
		t.Fatalf("%d calls after the cap was passed", n-1)
	}
}

// A meter under a parent budget admits a call only when it fits under
// both, and counts its cost in both: two engines under one $0.015 budget,
// each with its own $1 cap, get one $0.01 call between them.
func TestMeterUnderAParentBudget(t *testing.T) {
	budget := spend.NewMeter(0.015, 0)
	fake := &chunkFake{chunks: []string{"An answer."}, usage: providers.Usage{OutputTokens: 1000}}
	var refused error
	for range 2 {
		e, _ := pricedEngine(t, "mention", fake)
		e.SetCap(1)
		e.Meter().Under(budget)
		if err := e.Submit(context.Background(), "@gemini Go."); err != nil {
			refused = err
		}
		Settle(t, e)
	}
	var ce *spend.CapError
	if !errors.As(refused, &ce) || !strings.Contains(ce.Error(), "cap of $0.015") {
		t.Fatalf("second engine: %v, want the parent budget's refusal", refused)
	}
	if n := len(fake.calls()); n != 1 {
		t.Fatalf("%d calls under a budget with room for one", n)
	}
	if spent := budget.Spent(); spent < 0.01 {
		t.Fatalf("the budget counted %v, want the first call's cost", spent)
	}
}
