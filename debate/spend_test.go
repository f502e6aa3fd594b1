package debate_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
)

// cappedConfig puts every agent of modeConfig on one priced model whose
// input is free and whose output costs $10 per million tokens: with
// max_tokens 1,000 every call's worst case is exactly $0.01.
func cappedConfig() *config.Config {
	cfg := ModeConfig(known)
	ten, zero := 10.0, 0.0
	cfg.Models = providers.Catalogue{"priced-model": {Input: &zero, Output: &ten}}
	for i := range cfg.Agents {
		cfg.Agents[i].Model = "priced-model"
		cfg.Agents[i].MaxTokens = 1000
	}
	cfg.Modes.Mention.Agents = []string{"gemini", "chatgpt", "claude"}
	return cfg
}

// spendingFakes make every answer a valid vote that used all of its
// 1,000 output tokens ($0.01 each).
func spendingFakes(f map[string]*ModeFake) {
	for _, fake := range f {
		fake.Output = 1000
		fake.Answer = func(int, providers.Request) string {
			return `{"vote":"approve","reasoning":"It holds up.","summary":"Approve."}`
		}
	}
}

func TestCapReachedMidCouncilStopsBeforeTheNextCall(t *testing.T) {
	t.Parallel()
	e, log, events := NewModeEngine(t, cappedConfig(), "magi", spendingFakes)
	e.SetCap(0.035) // round 1 (three calls, $0.03) fits; a fourth could pass it
	err := e.Submit(context.Background(), "Ship on Friday?")
	Settle(t, e)
	var ce *spend.CapError
	if !errors.As(err, &ce) || ce.Reason != spend.CapSession {
		t.Fatalf("Submit = %v, want the session cap's error", err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatal("a cap stop should read as a cancel to the modes")
	}
	if n := len(log.All()); n != 3 {
		t.Fatalf("%d calls were made, want round 1's three and no more", n)
	}
	reached := EventsOf[CapReached](events)
	if len(reached) != 1 {
		t.Fatalf("%d cap_reached events, want one", len(reached))
	}
	msg := reached[0].Message
	for _, want := range []string{"cap of $0.035", "spent $0.0300", "up to $0.0100"} {
		if !strings.Contains(msg, want) {
			t.Errorf("cap message %q lacks %q", msg, want)
		}
	}
	// Round 1's answers are kept whole; round 2's first call is marked as
	// not started, naming the cap.
	var complete, refused int
	for _, en := range e.History().Entries() {
		if en.Kind != transcript.KindVote {
			continue
		}
		switch {
		case en.Round == 1 && en.Status == transcript.StatusComplete && en.Text != "":
			complete++
		case en.Status == transcript.StatusCancelled && strings.Contains(en.Error, "cost cap reached"):
			refused++
		}
	}
	if complete != 3 || refused == 0 {
		t.Fatalf("complete round-1 votes %d (want 3), refused turns %d (want some)", complete, refused)
	}
	last := LastOf[SpendUpdated](t, events)
	if last.SpentUSD < 0.0299 || last.SpentUSD > 0.0301 || last.CapUSD != 0.035 {
		t.Fatalf("last spend event %+v, want $0.03 spent under a $0.035 cap", last)
	}
	if fin := LastOf[ExchangeFinished](t, events); !strings.Contains(fin.Err, "cost cap reached") {
		t.Fatalf("exchange_finished error %q should name the cap", fin.Err)
	}
}

func TestUnpricedModelCannotRunUnderACap(t *testing.T) {
	t.Parallel()
	cfg := cappedConfig()
	cfg.Agents[0].Model = "nobody-priced-this"
	e, log, events := NewModeEngine(t, cfg, "mention", spendingFakes)
	e.SetCap(5)
	err := e.Submit(context.Background(), "@gemini hello")
	Settle(t, e)
	var ce *spend.CapError
	if !errors.As(err, &ce) || ce.Reason != spend.CapUnpriced {
		t.Fatalf("Submit = %v, want the unpriced refusal", err)
	}
	if len(log.All()) != 0 {
		t.Fatal("an unpriced model was called under a cap")
	}
	if msg := LastOf[CapReached](t, events).Message; !strings.Contains(msg, "nobody-priced-this has no price") {
		t.Fatalf("refusal %q should name the model and the reason", msg)
	}
	// Without a cap the same model runs (its cost shows as unknown).
	e.SetCap(0)
	if err := e.Submit(context.Background(), "@gemini hello"); err != nil {
		t.Fatal(err)
	}
	Settle(t, e)
	if !LastOf[SpendUpdated](t, events).Unknown {
		t.Fatal("spend after an unpriced call should be marked as a lower bound")
	}
}

// gatedFake holds every stream until release is closed, so calls are in
// flight while a sibling is refused.
type gatedFake struct {
	ModeFake
	release chan struct{}
}

func (g *gatedFake) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.ModeFake.Stream(ctx, req)
}

func TestCallsInFlightFinishWhenASiblingIsRefused(t *testing.T) {
	t.Parallel()
	cfg := cappedConfig()
	release := make(chan struct{})
	log := &CallLog{}
	var agents []*Agent
	for _, s := range cfg.Agents {
		f := &gatedFake{ModeFake: ModeFake{Agent: s.Name, Log: log, Output: 1000}, release: release}
		agents = append(agents, &Agent{AgentSpec: s, Provider: f})
	}
	e, err := NewEngine(cfg, agents, "mention")
	if err != nil {
		t.Fatal(err)
	}
	refusal := make(chan struct{})
	var once sync.Once
	e.Subscribe(func(ev Event) {
		if _, ok := ev.(CapReached); ok {
			once.Do(func() { close(refusal) })
		}
	})
	e.SetCap(0.025) // two of the three parallel calls fit
	done := make(chan error, 1)
	go func() { done <- e.Submit(context.Background(), "@all hello") }()
	select {
	case <-refusal:
	case <-time.After(time.Minute):
		t.Fatal("no cap_reached within a minute")
	}
	close(release)
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the exchange did not end")
	}
	Settle(t, e)
	if !spend.IsCap(err) {
		t.Fatalf("Submit = %v, want the cap", err)
	}
	var complete, refused int
	for _, en := range e.History().Entries() {
		switch {
		case en.Kind == transcript.KindReply && en.Status == transcript.StatusComplete && en.Text != "":
			complete++
		case en.Kind == transcript.KindReply && en.Status == transcript.StatusCancelled:
			refused++
		}
	}
	if complete != 2 || refused != 1 || len(log.All()) != 2 {
		t.Fatalf("complete %d, refused %d, calls %d: want the two admitted calls to finish and one refused", complete, refused, len(log.All()))
	}
}

func TestModeBudgetCapsEachExchange(t *testing.T) {
	t.Parallel()
	cfg := cappedConfig()
	cfg.Modes.Mention.BudgetUSD = 0.015 // one call per exchange
	e, log, events := NewModeEngine(t, cfg, "mention", spendingFakes)
	for range 2 {
		if err := e.Submit(context.Background(), "@gemini one call fits"); err != nil {
			t.Fatalf("a one-call exchange under a per-exchange cap: %v", err)
		}
	}
	err := e.Submit(context.Background(), "@gemini @chatgpt two do not")
	Settle(t, e)
	var ce *spend.CapError
	if !errors.As(err, &ce) || ce.Reason != spend.CapExchange {
		t.Fatalf("Submit = %v, want the per-exchange cap", err)
	}
	if n := len(log.All()); n != 3 {
		t.Fatalf("%d calls, want 3", n)
	}
	if !strings.Contains(LastOf[CapReached](t, events).Message, "this exchange's cap of $0.015") {
		t.Fatalf("message %q should name the exchange cap", LastOf[CapReached](t, events).Message)
	}
}

func TestMeterSharedByEngines(t *testing.T) {
	t.Parallel()
	shared := spend.NewMeter(0.015, 0)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		e, _, _ := NewModeEngine(t, cappedConfig(), "mention", spendingFakes)
		e.SetMeter(shared)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = e.Submit(context.Background(), "@gemini hello")
		}()
	}
	wg.Wait()
	if spend.IsCap(errs[0]) == spend.IsCap(errs[1]) {
		t.Fatalf("errors %v: one engine's call should fit and the other's be refused", errs)
	}
	if got := shared.Spent(); got < 0.0099 || got > 0.0101 {
		t.Fatalf("shared meter spent %v, want $0.01", got)
	}
}

// With free input and $10/M output at max_tokens 1,000, every call's worst
// case is $0.01: a MAGI council is 3 rounds × 3 members × 2 attempts, a
// council 3 answers + 3 rankings × 2 attempts + the chairman.
func TestWorstCasesCountEveryCallAndRetry(t *testing.T) {
	t.Parallel()
	cfg := cappedConfig()
	cfg.Modes.Council.Members = []string{"gemini", "chatgpt", "claude"}
	cases, err := WorstCases(cfg, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := []WorstCase{{Mode: "MAGI council", Calls: 18, USD: 0.18}, {Mode: "council", Calls: 10, USD: 0.10}}
	for i, w := range want {
		got := cases[i]
		if got.Mode != w.Mode || got.Calls != w.Calls || got.USD < w.USD-1e-9 || got.USD > w.USD+1e-9 || got.Unpriced != "" {
			t.Errorf("%+v, want %+v", got, w)
		}
	}
	cfg.Agents[1].Model = "nobody-priced-this"
	cases, _ = WorstCases(cfg, time.Now())
	if cases[0].Unpriced != "nobody-priced-this" || !strings.Contains(cases[0].String(), "no bound") {
		t.Errorf("an unpriced member: %v", cases[0])
	}
}

// Caching saves the difference between input and cache-read prices on
// every cached token; a write costs the premium over input.
func TestCacheSavingAndStats(t *testing.T) {
	t.Parallel()
	in, read, write, out := 2.0, 0.10, 2.50, 10.0
	cfg := &config.Config{Models: providers.Catalogue{"m": {Provider: "anthropic", Input: &in, CachedInput: &read, CacheWrite: &write, Output: &out}}}
	day := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	saved, ok := cfg.CacheSaving("m", providers.Usage{InputTokens: 10_000, CachedTokens: 8_000, OutputTokens: 100}, day)
	if !ok || saved < 0.0152-1e-12 || saved > 0.0152+1e-12 { // 8,000 × (2.00 − 0.10) / 1e6
		t.Fatalf("saved %v, want $0.0152", saved)
	}
	wrote, _ := cfg.CacheSaving("m", providers.Usage{InputTokens: 10_000, CacheWriteTokens: 8_000}, day)
	if wrote > -0.004+1e-12 || wrote < -0.004-1e-12 { // 8,000 × (2.50 − 2.00) / 1e6 more
		t.Fatalf("a write saved %v, want −$0.004", wrote)
	}
	stats := spend.CacheStatsOf(cfg, []transcript.Entry{
		{Model: "m", Started: day, Usage: providers.Usage{InputTokens: 10_000, CacheWriteTokens: 8_000}},
		{Model: "m", Started: day, Usage: providers.Usage{InputTokens: 10_000, CachedTokens: 8_000}},
		{Model: "unpriced", Started: day, Usage: providers.Usage{InputTokens: 5_000, CachedTokens: 1_000}},
	})
	if got := stats.String(); got != "cache: 36% of 25,000 input tokens read from cache, saved $0.0112 (not counting an unpriced model's)" {
		t.Fatalf("stats %q", got)
	}
	if got := (spend.CacheStats{}).Short(); got != "" {
		t.Fatalf("nothing cached yet shows %q", got)
	}
}

// A call to a model the catalogue lists as shut down that the provider
// refuses says so, naming the replacement.
func TestShutDownModelErrorNamesTheCause(t *testing.T) {
	t.Parallel()
	cfg := cappedConfig()
	ten := 10.0
	cfg.Models["old-model"] = providers.ModelInfo{Output: &ten, Shutdown: "2026-06-17", Replacement: "new-model"}
	cfg.Agents[0].Model = "old-model"
	e, _, _ := NewModeEngine(t, cfg, "mention", func(f map[string]*ModeFake) {
		f["gemini"].Fail = &providers.Error{Provider: "fake", Kind: providers.KindBadRequest, Status: 404, Message: "model not found"}
	})
	_ = e.Submit(context.Background(), "@gemini hello")
	Settle(t, e)
	en := e.History().Entries()[1]
	for _, want := range []string{"old-model was shut down on 2026-06-17", "switch the agent's model to new-model", "model not found"} {
		if !strings.Contains(en.Error, want) {
			t.Errorf("error %q lacks %q", en.Error, want)
		}
	}
}
