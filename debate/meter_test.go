package debate_test

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/debate/figures"
	"github.com/parleyhq/parley/providers"
)

// The spend meter's table: each row is a promise a hand-made mutant of
// the spend path broke without any other test failing (issue 42).
// Every call of cappedConfig has a worst case of exactly $0.01.
func TestSpendMeterTable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		run  func(t *testing.T)
	}{
		// Mutant: `(sessionCap > 0 || modeCap > 0) && !priced` →
		// `sessionCap > 0 && !priced`: a per-exchange cap alone must
		// refuse a model without a price too.
		{"unpriced model under a per-exchange cap alone", func(t *testing.T) {
			for _, caps := range []struct{ session, mode float64 }{{5, 0}, {0, 5}, {5, 5}} {
				cfg := cappedConfig()
				cfg.Agents[0].Model = "nobody-priced-this"
				cfg.Modes.Mention.BudgetUSD = caps.mode
				e, log, _ := NewModeEngine(t, cfg, "mention", spendingFakes)
				e.SetCap(caps.session)
				err := e.Submit(context.Background(), "@gemini hello")
				Settle(t, e)
				var ce *spend.CapError
				if !errors.As(err, &ce) || ce.Reason != spend.CapUnpriced || ce.CapUSD != 5 {
					t.Errorf("caps %+v: Submit = %v, want the unpriced refusal naming the $5 cap", caps, err)
				}
				if n := len(log.All()); n != 0 {
					t.Errorf("caps %+v: %d calls to a model no cap can bound", caps, n)
				}
			}
		}},
		// Mutant: the exchange cap compares spent + worst, leaving out
		// the reservations of the calls in flight (or never adds them):
		// three parallel calls would all start under a cap for two.
		{"parallel calls' reservations count in the exchange cap", func(t *testing.T) {
			cfg := cappedConfig()
			cfg.Modes.Mention.BudgetUSD = 0.025 // two of the three parallel calls fit
			calls, err := parallelAll(t, cfg, 0)
			var ce *spend.CapError
			if !errors.As(err, &ce) || ce.Reason != spend.CapExchange {
				t.Errorf("Submit = %v, want the exchange cap", err)
			}
			if calls != 2 {
				t.Errorf("%d calls started under an exchange cap with room for two", calls)
			}
		}},
		{"parallel calls' reservations count in the session cap", func(t *testing.T) {
			calls, err := parallelAll(t, cappedConfig(), 0.025)
			var ce *spend.CapError
			if !errors.As(err, &ce) || ce.Reason != spend.CapSession || calls != 2 {
				t.Errorf("Submit = %v after %d calls, want the session cap after two", err, calls)
			}
		}},
		// Mutant: the turn charges only the last attempt's usage, not
		// what the failed attempts before it consumed (Result.Retried).
		{"failed retry attempts are charged", func(t *testing.T) {
			fake := &retriedFake{chunkFake: chunkFake{chunks: []string{"An answer."}, usage: providers.Usage{InputTokens: 1000, OutputTokens: 1000}},
				retried: providers.Usage{InputTokens: 2000, OutputTokens: 500, Estimated: true}}
			e, _ := pricedEngine(t, "mention", fake)
			if err := e.Submit(context.Background(), "@gemini Go."); err != nil {
				t.Fatal(err)
			}
			Settle(t, e)
			// 3,000 input at $1/M and 1,500 output at $10/M.
			const want = 0.003 + 0.015
			en := lastAgentTurn(t, e)
			if !near(en.Cost, want) || en.Usage.InputTokens != 3000 || en.Usage.OutputTokens != 1500 || !en.Usage.Estimated {
				t.Errorf("turn cost %v, usage %+v; want $%v for both attempts, estimated", en.Cost, en.Usage, want)
			}
			if got := e.Meter().Spent(); !near(got, want) {
				t.Errorf("meter spent %v, want %v", got, want)
			}
		}},
		// Mutant: the meter's unknown flag takes the last call's
		// (`m.unknown = u.PriceUnknown`): a priced call after an unpriced
		// one must not make the spend read as exact.
		{"an unpriced call keeps the spend a lower bound", func(t *testing.T) {
			cfg := cappedConfig()
			cfg.Agents[0].Model = "nobody-priced-this" // gemini
			e, _, events := NewModeEngine(t, cfg, "mention", spendingFakes)
			for _, line := range []string{"@gemini one", "@chatgpt two", "@claude three"} {
				if err := e.Submit(context.Background(), line); err != nil {
					t.Fatal(err)
				}
			}
			Settle(t, e)
			if s := LastOf[SpendUpdated](t, events); !s.Unknown || !near(s.SpentUSD, 0.02) {
				t.Errorf("last spend %+v: want $0.02 marked as a lower bound", s)
			}
			if s := e.Spend(); !s.Unknown {
				t.Errorf("Spend() = %+v, want Unknown", s)
			}
		}},
	} {
		t.Run(c.name, c.run)
	}
}

// parallelAll asks @all (three agents at once, each held until all were
// admitted or refused) under cfg and a session cap, and returns how many
// calls reached a provider.
func parallelAll(t *testing.T, cfg *config.Config, sessionCap float64) (int, error) {
	t.Helper()
	release := make(chan struct{})
	entered := make(chan struct{}, len(cfg.Agents))
	log := &CallLog{}
	var agents []*Agent
	for _, s := range cfg.Agents {
		f := &countedGate{gatedFake: gatedFake{ModeFake: ModeFake{Agent: s.Name, Log: log, Output: 1000}, release: release}, entered: entered}
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
	e.SetCap(sessionCap)
	done := make(chan error, 1)
	go func() { done <- e.Submit(context.Background(), "@all hello") }()
	admitted := 0
wait:
	for {
		select {
		case <-refusal:
			break wait
		case <-entered:
			if admitted++; admitted == len(cfg.Modes.Mention.Agents) { // every call admitted: none was refused
				break wait
			}
		case <-time.After(time.Minute):
			close(release)
			t.Fatal("no cap_reached within a minute")
		}
	}
	close(release)
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the exchange did not end")
	}
	Settle(t, e)
	return len(log.All()), err
}

// countedGate is a gatedFake that says when a call was admitted (its
// stream asked for), before it is held.
type countedGate struct {
	gatedFake
	entered chan<- struct{}
}

func (g *countedGate) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	g.entered <- struct{}{}
	return g.gatedFake.Stream(ctx, req)
}

// retriedFake is a call whose provider layer retried: its result carries
// what the failed attempts consumed, as providers' retry layer reports it.
type retriedFake struct {
	chunkFake
	retried providers.Usage
}

func (f *retriedFake) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	s, err := f.chunkFake.Stream(ctx, req)
	return retriedStream{Stream: s, retried: f.retried}, err
}

type retriedStream struct {
	providers.Stream
	retried providers.Usage
}

func (s retriedStream) Result() providers.Result {
	r := s.Stream.Result()
	r.Retried = s.retried
	return r
}

func lastAgentTurn(t *testing.T, e *Engine) transcript.Entry {
	t.Helper()
	entries := e.History().Entries()
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].IsAgentTurn() {
			return entries[i]
		}
	}
	t.Fatal("no agent turn")
	return transcript.Entry{}
}

// Break 4 of issue 42: a provider's usage is outside text too. Negative
// counts were stored as negative tokens; a count past any real call made
// an absurd cost. Both are clamped, marked estimated and reported; the
// answer is kept and no cost is negative or infinite.
func TestProviderUsageOutsideItsBoundsIsClamped(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		reported providers.Usage
		in, out  int
	}{
		{"negative", providers.Usage{InputTokens: -5_000_000, OutputTokens: -1, CachedTokens: -3}, 0, 0},
		{"absurd", providers.Usage{InputTokens: 10, OutputTokens: math.MaxInt}, 10, figures.MaxTokens},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := &chunkFake{chunks: []string{"An answer."}, usage: c.reported}
			e, events := pricedEngine(t, "mention", fake)
			if err := e.Submit(context.Background(), "@gemini Go."); err != nil && !spend.IsCap(err) {
				t.Fatal(err)
			}
			Settle(t, e)
			en := lastAgentTurn(t, e)
			u := en.Usage
			if en.Text != "An answer." || u.InputTokens < 0 || u.OutputTokens < 0 || u.CachedTokens < 0 || u.OutputTokens > figures.MaxTokens {
				t.Fatalf("turn %q usage %+v", en.Text, u)
			}
			if c.in > 0 && (u.InputTokens != c.in || u.OutputTokens != c.out) {
				t.Errorf("usage %+v, want %d in and %d out", u, c.in, c.out)
			}
			if !u.Estimated || !figures.Finite(en.Cost) || !figures.Finite(e.Meter().Spent()) {
				t.Errorf("usage %+v cost %v spent %v: want estimated, finite", u, en.Cost, e.Meter().Spent())
			}
			var warned bool
			for _, ev := range EventsOf[ErrorOccurred](events) {
				warned = warned || ev.Kind == KindBadUsage
			}
			if !warned {
				t.Error("the clamped usage was not reported")
			}
		})
	}
}
