package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
)

// pricedEngine is testEngine with the catalogue's prices in force: the
// demo agents answer offline but their calls cost what the models charge.
func pricedEngine(t *testing.T) *debate.Engine {
	t.Helper()
	cfg := testConfig(t)
	cfg.Offline = false
	// viper reads "gemini-3.8-flash" as a nested key; the command's
	// loader handles that, this test gives the price itself.
	in, cached, out := 0.75, 0.075, 3.75
	cfg.Models = providers.Catalogue{"gemini-3.8-flash": {Provider: "gemini", Input: &in, CachedInput: &cached, Output: &out, MaxOutput: 65536}}
	var agents []*debate.Agent
	for _, spec := range cfg.Agents {
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: demo.NewWithPace("demo", time.Millisecond)})
	}
	e, err := debate.NewEngine(cfg, agents, "mention")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestBudgetCommandCapsTheSession(t *testing.T) {
	t.Parallel()
	e := pricedEngine(t)
	m := New(testOptions(e))
	tm := start(t, m, 120, 40)

	// gemini-3.8-flash may write its 8,192 max_tokens at $3.75/M: a $0.031
	// worst case, which a 2-cent cap refuses before anything is sent.
	typeLine(tm, "/budget 0.02")
	waitFor(t, tm, "the cap on the status line", func(m *Model) bool {
		return strings.Contains(screen(m), "cap $0.0000/$0.02")
	})
	typeLine(tm, "@gemini hello")
	waitFor(t, tm, "the refusal on the status line and the refused agent's panel", func(m *Model) bool {
		p := m.byName["gemini"]
		return idle(m) && strings.Contains(m.status, "cost cap reached") && strings.Contains(m.status, "cap of $0.02") &&
			p != nil && p.state == stateCancelled && strings.Contains(p.err, "cost cap reached")
	})
	probe(t, tm, func(m *Model) {
		for _, en := range m.engine.History().Entries() {
			if en.Kind == transcript.KindReply && (en.Status != transcript.StatusCancelled || en.Text != "" || en.Usage.Total() != 0) {
				t.Errorf("a call ran under the cap: %+v", en)
			}
		}
	})

	// Raised, the same question goes through and its spend shows against
	// the cap.
	typeLine(tm, "/budget 1")
	typeLine(tm, "@gemini hello")
	waitFor(t, tm, "the answer", func(m *Model) bool {
		return idle(m) && m.spend.SpentUSD > 0
	})
	s := snapshot(t, tm)
	if !strings.Contains(s, "/$1.00") {
		t.Errorf("status line lacks the spend against the cap:\n%s", s)
	}
	typeLine(tm, "/budget nonsense")
	waitFor(t, tm, "the usage line", func(m *Model) bool { return strings.Contains(m.status, "usage: /budget USD") })
	typeLine(tm, "/budget NaN") // NaN passes every "spent > cap" check: a cap that caps nothing
	waitFor(t, tm, "NaN refused", func(m *Model) bool {
		return strings.Contains(m.status, "/budget: NaN is not a finite amount") && m.engine.Meter().Cap() == 1
	})
	typeLine(tm, "/budget off")
	waitFor(t, tm, "the cap lifted", func(m *Model) bool { return m.engine.Meter().Cap() == 0 && !strings.Contains(screen(m), "cap $") })
}

// cachingProvider answers at once and reports that 600 of its 1,000 input
// tokens came from the provider's cache.
type cachingProvider struct{}

func (cachingProvider) Name() string { return "caching" }

func (cachingProvider) Stream(context.Context, providers.Request) (providers.Stream, error) {
	return &onceStream{text: "cached answer"}, nil
}

type onceStream struct {
	text string
	done bool
}

func (s *onceStream) Next() bool {
	if s.done {
		return false
	}
	s.done = true
	return true
}
func (s *onceStream) Delta() string { return s.text }
func (s *onceStream) Err() error    { return nil }
func (s *onceStream) Close() error  { return nil }
func (s *onceStream) Result() providers.Result {
	return providers.Result{FinishReason: "stop", Usage: providers.Usage{InputTokens: 1000, CachedTokens: 600, OutputTokens: 10}}
}

func TestStatusLineShowsCacheShareAndSaving(t *testing.T) {
	t.Parallel()
	e := pricedEngine(t)
	for _, a := range e.Agents() {
		a.Provider = cachingProvider{}
	}
	m := New(testOptions(e))
	tm := start(t, m, 120, 40)
	typeLine(tm, "@gemini hello")
	// 600 cached tokens at $0.75 − $0.075 per million: $0.0004 saved.
	waitFor(t, tm, "the cache on the status line", func(m *Model) bool {
		return idle(m) && strings.Contains(screen(m), "cache 60% saved $0.0004")
	})
}
