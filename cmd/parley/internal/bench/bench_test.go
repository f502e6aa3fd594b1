package bench

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// roundOf tells a council request's round from what it carries, the way a
// scripted fake must: round 1 is the question alone.
func roundOf(r providertest.Request) int {
	last := r.Messages[len(r.Messages)-1].Content
	switch {
	case len(r.Messages) == 1:
		return 1
	case strings.Contains(last, "Round 2 of"):
		return 2
	case strings.Contains(last, "Round 3 of"):
		return 3
	}
	return 0 // a retry after an unreadable answer
}

// goldOf reads the gold answer the test hid in the question ("... #12").
func goldOf(r providertest.Request) int {
	q := r.Messages[0].Content
	var n int
	fmt.Sscanf(q[strings.LastIndex(q, "#")+1:], "%d", &n)
	return n
}

func answer(v int, reasoning string) string {
	return fmt.Sprintf(`{"answer": "%d", "confidence": 0.8, "reasoning": %q, "summary": "s"}`, v, reasoning)
}

type fakes struct {
	openai, anthropic, gemini *providertest.Server
	waits                     []time.Duration
	mu                        sync.Mutex
}

// scripted starts three vendor fakes: MELCHIOR (OpenAI) is right in round 1
// and talked into the wrong answer in round 2; BALTHASAR (Anthropic) never
// answers in a readable form; CASPER (Gemini) fails its first call of every
// question with 429 Retry-After: 1, then answers wrong (gold+1) throughout.
func scripted(t *testing.T) (*fakes, *config.Config, []*debate.Agent) {
	f := &fakes{}
	f.openai = providertest.OpenAI(t, func(r providertest.Request) providertest.Reply {
		g := goldOf(r)
		text := answer(g, "Multiplication first, then the sums, gives this value exactly.")
		if roundOf(r) >= 2 {
			text = answer(g+1, "Agreed with others.")
		}
		return providertest.Reply{Text: text, Usage: providers.Usage{InputTokens: 100, OutputTokens: 20}}
	})
	f.anthropic = providertest.Anthropic(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "It is forty-something, I would say.", Usage: providers.Usage{InputTokens: 200, OutputTokens: 10}}
	})
	seen := map[int]bool{}
	var mu sync.Mutex
	f.gemini = providertest.Gemini(t, func(r providertest.Request) providertest.Reply {
		mu.Lock()
		first := !seen[goldOf(r)]
		seen[goldOf(r)] = true
		mu.Unlock()
		if first {
			return providertest.Reply{Status: 429, Text: "slow down", RetryAfter: "1"}
		}
		return providertest.Reply{Text: answer(goldOf(r)+1, "I add before multiplying here, which gives this."), Usage: providers.Usage{InputTokens: 50, OutputTokens: 5}}
	})
	cfg, agents := councilOf(t, f.openai.URL, f.anthropic.URL, f.gemini.URL, providers.RetryPolicy{Sleep: func(_ context.Context, d time.Duration) error {
		f.mu.Lock()
		f.waits = append(f.waits, d)
		f.mu.Unlock()
		return nil
	}})
	return f, cfg, agents
}

// councilOf configures MELCHIOR on the OpenAI fake at openaiURL, BALTHASAR
// on the Anthropic one and CASPER on the Gemini one, with fixed prices.
func councilOf(t *testing.T, openaiURL, anthropicURL, geminiURL string, pol providers.RetryPolicy) (*config.Config, []*debate.Agent) {
	loaded, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := loaded.Config
	cfg.Bench.MaxTokens = 100
	// Fixed models and prices, whatever the defaults become.
	models := map[string]string{"melchior": "gpt-5", "balthasar": "claude-sonnet-4-6", "casper": "gemini-3-flash-preview"}
	for i := range cfg.Agents {
		if m, ok := models[cfg.Agents[i].Name]; ok {
			cfg.Agents[i].Model = m
		}
	}
	cfg.Pricing = map[string]config.Price{"gpt-5": {Input: 1.25, Output: 10}, "claude-sonnet-4-6": {Input: 3, Output: 15},
		"gemini-3-flash-preview": {Input: 0.5, Output: 3}}
	getenv := func(string) string { return "test-key" }
	openFake := func(name, typ, url string) providers.Provider {
		p, err := open.WithPolicy(name, providers.Spec{Type: typ, BaseURL: url, APIKeyEnv: "K"}, getenv, pol)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	byProvider := map[string]providers.Provider{
		"openai": openFake("openai", "openai", openaiURL), "anthropic": openFake("anthropic", "anthropic", anthropicURL),
		"gemini": openFake("gemini", "gemini", geminiURL)}
	var agents []*debate.Agent
	for _, spec := range cfg.Agents {
		p := byProvider[spec.Provider]
		if p == nil {
			p = demo.NewWithPace("demo", 0)
		}
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: p})
	}
	return cfg, agents
}

func questions(n int) []Question {
	qs := make([]Question, n)
	for i := range qs {
		gold := 10 * (i + 1)
		qs[i] = Question{ID: fmt.Sprintf("q%d", i+1), Type: verdict.AnswerNumber, Answer: fmt.Sprint(gold),
			Question: fmt.Sprintf("What is the hidden number? #%d", gold)}
	}
	return qs
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestScriptedCouncilReportIsExact(t *testing.T) {
	t.Parallel()
	f, cfg, agents := scripted(t)
	out, err := Run(context.Background(), Setup{Config: cfg, Agents: agents, Rounds: 3, Workers: 2}, questions(2), nil)
	if err != nil || out.Stopped != "" || len(out.Results) != 2 {
		t.Fatalf("run: %v, stopped %q, %d results", err, out.Stopped, len(out.Results))
	}
	rep := Measure(out.Results, []string{"melchior", "balthasar", "casper"}, 3)
	want := map[string]int{"member:melchior": 2, "member:balthasar": 0, "member:casper": 0,
		"majority_r1": 0, "weighted_r1": 0, "verdict_r2": 0, "verdict_r3": 0, "adaptive": 0, "guarded": 0, "early_stop": 0,
		"sprt": 0, "oracle": 2}
	var names []string
	for _, c := range rep.Conditions {
		names = append(names, c.Name)
		if c.Correct != want[c.Name] {
			t.Errorf("%s: %d correct, want %d", c.Name, c.Correct, want[c.Name])
		}
		// MELCHIOR was right in round 1 on both: every rule lost it twice.
		if lost := 2 - c.Correct; !strings.HasPrefix(c.Name, "member:") && c.Name != "oracle" && c.Lost != lost {
			t.Errorf("%s: %d right answers lost, want %d", c.Name, c.Lost, lost)
		}
	}
	if got := strings.Join(names, " "); got != "member:melchior member:balthasar member:casper majority_r1 weighted_r1 verdict_r2 verdict_r3 adaptive guarded early_stop sprt oracle" {
		t.Errorf("conditions %s", got)
	}
	lo, hi := Wilson(2, 2)
	if m := rep.Conditions[0]; m.Accuracy != 1 || m.CI95 != [2]float64{lo, hi} || !near(lo, 0.3423802275066531) || hi != 1 {
		t.Errorf("melchior alone: %+v", m)
	}
	// Round 1: 10 right, BALTHASAR invalid, CASPER 11 wrong: no majority
	// (INCOMPLETE); from round 2 on two members say 11.
	if rep.Questions != 2 || rep.Invalid != 6 || rep.InvalidBy["balthasar"] != 6 {
		t.Errorf("questions %d, invalid %d %v", rep.Questions, rep.Invalid, rep.InvalidBy)
	}
	if rep.Flips.RightToWrong != 2 || rep.Flips.WrongToRight != 0 || rep.Flips.Conformity != 2 ||
		len(rep.Flips.ByMember) != 1 || rep.Flips.ByMember[0] != (MemberFlips{Agent: "melchior", Round: 2, RightToWrong: 2, Conformity: 2}) {
		t.Errorf("flips %+v", rep.Flips)
	}
	if rep.Delta.RightToWrong != 0 || rep.Delta.WrongToRight != 0 || rep.Delta.PValue != 1 || rep.Delta.To != "verdict_r3" {
		t.Errorf("delta %+v", rep.Delta)
	}
	if rep.Unanimity != (Unanimity{}) || rep.EarlyStop.Stopped != 0 {
		t.Errorf("unanimity %+v early stop %+v", rep.Unanimity, rep.EarlyStop)
	}
	// Calls: MELCHIOR 3, BALTHASAR 6 (each round asked twice), CASPER 3 (the
	// 429 is retried inside one call) per question.
	if rep.Calls != 24 || rep.Tokens != 2*(3*120+6*210+3*55) {
		t.Errorf("calls %d tokens %d", rep.Calls, rep.Tokens)
	}
	wantCost := 2 * (3*(100*1.25+20*10.0) + 6*(200*3.0+10*15.0) + 3*(50*0.5+5*3.0)) / 1e6
	if !near(rep.Cost, wantCost) {
		t.Errorf("cost %.10f, want %.10f", rep.Cost, wantCost)
	}
	if c := rep.Conditions[3]; c.Name != "majority_r1" || c.Tokens != 2*(120+2*210+55) || !near(c.Cost, 2*(100*1.25+20*10.0+2*(200*3.0+10*15.0)+50*0.5+5*3.0)/1e6) {
		t.Errorf("majority_r1 tokens %d cost %.10f", c.Tokens, c.Cost)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.waits) != 2 || f.waits[0] != time.Second || f.waits[1] != time.Second {
		t.Errorf("retry waits %v, want Retry-After's 1s twice", f.waits)
	}
}

func TestMaxCostNeverOvershoots(t *testing.T) {
	t.Parallel()
	_, cfg, agents := scripted(t)
	for _, limit := range []float64{0.0005, 0.004, 0.02, 0.05} {
		out, err := Run(context.Background(), Setup{Config: cfg, Agents: agents, Rounds: 3, Workers: 3, MaxCost: limit}, questions(12), nil)
		if err != nil {
			t.Fatal(err)
		}
		spent := 0.0
		for _, r := range out.Results {
			for _, round := range r.Rounds {
				for _, v := range round {
					spent += v.Cost
				}
			}
		}
		if out.Spent > limit+1e-15 || spent > out.Spent+1e-15 {
			t.Errorf("max-cost %.4f: spent %.6f (scored questions %.6f)", limit, out.Spent, spent)
		}
		if len(out.Results) == 12 || out.Stopped != "max-cost" {
			t.Errorf("max-cost %.4f: %d results, stopped %q; want a partial run", limit, len(out.Results), out.Stopped)
		}
	}
}

func TestWilsonAndMcNemar(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{{0, 10, 0, 0.2775327998628892}, {5, 10, 0.236593090512564, 0.7634069094874361}, {10, 10, 0.7224672001371107, 1}, {0, 0, 0, 1}} {
		lo, hi := Wilson(c.k, c.n)
		if !near(lo, c.lo) || !near(hi, c.hi) {
			t.Errorf("Wilson(%d,%d) = [%v, %v], want [%v, %v]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	for _, c := range []struct {
		b, c int
		p    float64
	}{{0, 0, 1}, {0, 6, 0.03125}, {1, 5, 0.21875}, {3, 3, 1}, {0, 10, 0.001953125}} {
		if p := McNemarExact(c.b, c.c); !near(p, c.p) {
			t.Errorf("McNemar(%d,%d) = %v, want %v", c.b, c.c, p, c.p)
		}
	}
}

func TestLimiterSpacesRequestsAndTokens(t *testing.T) {
	t.Parallel()
	now := time.Unix(0, 0)
	l := &limiter{rpm: 60, tpm: 600}
	if d := l.take(now, 100); d != 0 {
		t.Fatalf("first call waits %v", d)
	}
	if d := l.take(now, 100); d != time.Second {
		t.Errorf("second call at once waits %v, want 1s (60 a minute)", d)
	}
	now = now.Add(time.Second)
	if d := l.take(now, 550); d <= 0 { // 500 left + 10 refilled < 550
		t.Errorf("a call past the token bucket did not wait")
	}
	l.pause(time.Hour)
	if d := l.take(time.Now(), 1); d < 59*time.Minute {
		t.Errorf("a Retry-After pause was not kept: %v", d)
	}
}

func BenchmarkBench(b *testing.B) {
	loaded, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		b.Fatal(err)
	}
	cfg := loaded.Config
	cfg.Pricing = nil
	var agents []*debate.Agent
	for _, spec := range cfg.Agents {
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: demo.NewWithPace("demo", 0)})
	}
	b.Run("questions=1000", func(b *testing.B) {
		qs := Arith(1000, 7)
		// The provider calls alone: 9 demo answers per question.
		start := time.Now()
		req := providers.Request{Schema: &providers.Schema{Name: verdict.AnswerSchemaName}, System: "You are X.",
			Messages: []providers.Message{{Role: providers.RoleUser, Content: "[Host]: " + qs[0].Prompt()}}}
		for range 9 * len(qs) {
			s, _ := agents[0].Provider.Stream(context.Background(), req)
			for s.Next() {
			}
		}
		calls := time.Since(start)
		b.ResetTimer()
		for range b.N {
			out, err := Run(context.Background(), Setup{Config: cfg, Agents: agents, Rounds: 3, Workers: 1}, qs, nil)
			if err != nil || len(out.Results) != len(qs) {
				b.Fatal(err, len(out.Results))
			}
			_ = Measure(out.Results, cfg.Modes.Magi.Agents, 3)
		}
		perQ := b.Elapsed().Seconds() / float64(b.N) / float64(len(qs))
		b.ReportMetric(1000*perQ, "ms/question")
		b.ReportMetric(1000*(perQ-calls.Seconds()/float64(len(qs))), "overhead-ms/question")
	})
}

// rateLimited fails like a vendor's 429 would reach the retry policy: it
// tells OnRetry before the policy waits.
type rateLimited struct{ wait time.Duration }

func (rateLimited) Name() string { return "gemini" }

func (p rateLimited) Stream(_ context.Context, req providers.Request) (providers.Stream, error) {
	req.OnRetry(providers.RetryNotice{Attempt: 1, Wait: p.wait, Err: &providers.Error{Provider: "gemini", Kind: providers.KindRateLimit, Status: 429, RetryAfter: p.wait}})
	return demo.NewWithPace("demo", 0).Stream(context.Background(), req)
}

// A 429's Retry-After holds every worker's calls to that provider, not only
// the call that met it.
func TestRetryAfterPausesTheProviderForEveryWorker(t *testing.T) {
	t.Parallel()
	g := newGate(map[string]config.RateLimit{"gemini": {RequestsPerMinute: 6000}})
	p := &gated{inner: rateLimited{wait: time.Hour}, g: g}
	s, err := p.Stream(context.Background(), providers.Request{Messages: []providers.Message{{Role: providers.RoleUser, Content: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	for s.Next() {
	}
	if d := g.limiters["gemini"].take(time.Now(), 1); d < 59*time.Minute {
		t.Errorf("the next gemini call may start in %v, want the hour Retry-After asked for", d)
	}
}

func TestReportOutputsEscapeNames(t *testing.T) {
	t.Parallel()
	rep := Measure([]Result{{ID: "q", Gold: "1", Rounds: [][]Vote{{{Agent: "<b>x", Answer: "1", Valid: true, Calls: 1, Tokens: 3}}}}}, []string{"<b>x"}, 1)
	rep.Set, rep.Run = "<script>alert(1)</script>\x1b[2J", "r1"
	var page, text strings.Builder
	if err := WriteHTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), "<script>") || strings.Contains(page.String(), "<b>x") {
		t.Errorf("HTML report carries raw markup")
	}
	WriteText(&text, rep)
	if strings.Contains(text.String(), "\x1b") {
		t.Errorf("terminal report carries an escape sequence")
	}
	var plain, tty strings.Builder
	(&ProgressPrinter{W: &plain, Final: "majority_r1"}).Show(Progress{Done: 1, Total: 2, Correct: map[string]int{"majority_r1": 1}})
	(&ProgressPrinter{W: &tty, TTY: true, Final: "majority_r1"}).Show(Progress{Done: 1, Total: 2, Correct: map[string]int{"majority_r1": 1}})
	// One round: the final verdict is round 1's majority, named once (it
	// read "majority_r1 100%  majority_r1 100%").
	if strings.Contains(plain.String(), "\x1b") || !strings.HasPrefix(plain.String(), "bench: 1/2  majority_r1 100%  early_stop") || !strings.HasSuffix(plain.String(), "\n") {
		t.Errorf("piped progress %q", plain.String())
	}
	if !strings.HasPrefix(tty.String(), "\r\x1b[K[") || strings.Contains(tty.String(), "\n") {
		t.Errorf("terminal progress %q", tty.String())
	}
}

func TestMaxCostRefusesUnpricedModels(t *testing.T) {
	t.Parallel()
	_, cfg, agents := scripted(t)
	for i := range agents {
		if agents[i].Name == "casper" {
			a := *agents[i]
			a.Model = "no-such-model-7"
			agents[i] = &a
		}
	}
	_, err := Run(context.Background(), Setup{Config: cfg, Agents: agents, Rounds: 1, Workers: 1, MaxCost: 1}, questions(1), nil)
	if err == nil || !strings.Contains(err.Error(), "no-such-model-7") {
		t.Errorf("want a refusal naming the unpriced model, got %v", err)
	}
}

// The simulation's label sends the reader to a page and a passage that exist.
func TestSimulationLabelPointsAtItsDocs(t *testing.T) {
	t.Parallel()
	for _, generated := range []bool{false, true} {
		label := describeSim(generated)
		m := regexp.MustCompile(`See (docs/[a-z]+\.md), "([^"]+)"\.$`).FindStringSubmatch(label)
		if m == nil {
			t.Fatalf("the label names no docs page and passage: %q", label)
		}
		page, err := os.ReadFile(filepath.Join("..", "..", "..", "..", m[1]))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(page), "**"+m[2]+".**") && !strings.Contains(string(page), "## "+m[2]+"\n") {
			t.Errorf("%s has no passage %q", m[1], m[2])
		}
	}
}
