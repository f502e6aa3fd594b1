package debate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/parleyhq/parley/providers"
)

// WorstQuestionTokens is the question a worst case allows for: about
// 8,000 characters of prose.
const WorstQuestionTokens = 2000

// worstInstructionTokens bounds a mode's instructions and the prompt
// scaffolding around the question (vote format, peers' labels).
const worstInstructionTokens = 1000

// WorstCase is the most one exchange of a mode can cost with the
// configured agents: every call at its max_tokens, every retry taken.
type WorstCase struct {
	Mode  string  `json:"mode"`
	Calls int     `json:"calls"`
	USD   float64 `json:"usd"`
	// Unpriced names a model without a price: the exchange has no bound.
	Unpriced string `json:"unpriced,omitempty"`
}

// String is "MAGI council: at most $0.3121 (18 calls)".
func (w WorstCase) String() string {
	if w.Unpriced != "" {
		return fmt.Sprintf("%s: no bound (%s has no price)", w.Mode, w.Unpriced)
	}
	return fmt.Sprintf("%s: at most $%.4f (%d calls)", w.Mode, w.USD, w.Calls)
}

// WorstCases bounds one MAGI council (three rounds) and one council of
// the configuration at day at: each call's prompt is its system prompt,
// the mode's instructions, a question of WorstQuestionTokens, the debate
// the mode reads (its context budget) and every earlier answer it is
// shown at its author's max_tokens; its output is its own max_tokens;
// every structured answer is retried once. The engine's cap checks each
// real call against its own worst case; this is the bound to choose a
// cap by.
func WorstCases(cfg *Config, at time.Time) ([]WorstCase, error) {
	var agents []*Agent
	for _, spec := range cfg.Agents {
		agents = append(agents, &Agent{AgentSpec: spec, Provider: nullProvider{}})
	}
	e, err := NewEngine(cfg, agents, "magi")
	if err != nil {
		return nil, err
	}
	b := &bound{e: e, at: at}
	magi, err := e.Mode("magi")
	if err != nil {
		return nil, err
	}
	b.magi(magi.Agents())
	out := []WorstCase{b.result("MAGI council")}
	b.reset()
	council, err := e.Mode("council")
	if err != nil {
		return nil, err
	}
	b.council(council.Agents())
	return append(out, b.result("council")), nil
}

// bound sums the worst cases of a mode's calls.
type bound struct {
	e        *Engine
	at       time.Time
	calls    int
	usd      float64
	unpriced string
}

func (b *bound) reset() { b.calls, b.usd, b.unpriced = 0, 0, "" }

func (b *bound) result(mode string) WorstCase {
	return WorstCase{Mode: mode, Calls: b.calls, USD: b.usd, Unpriced: b.unpriced}
}

// maxOut is the output limit the engine sends for a.
func (b *bound) maxOut(a *Agent) int {
	if a.MaxTokens > 0 {
		return a.MaxTokens
	}
	return b.e.Config.ModelInfo(a.Model).DefaultMaxTokens()
}

// call adds one call of a reading shown more tokens than its base prompt.
func (b *bound) call(a *Agent, mode string, shown int) {
	in := EstimateTokens(SystemPrompt(a, "")) + worstInstructionTokens + WorstQuestionTokens +
		b.e.Config.ContextBudget(mode).Total + shown
	u := providers.Usage{InputTokens: in, CacheWriteTokens: in, OutputTokens: b.maxOut(a)}
	written, ok := b.e.Config.CostAt(a.Model, u, b.at)
	u.CacheWriteTokens = 0
	plain, _ := b.e.Config.CostAt(a.Model, u, b.at)
	if !ok && b.unpriced == "" {
		b.unpriced = a.Model
	}
	b.calls++
	b.usd += max(written, plain)
}

// retried adds a structured answer and its one retry, which also reads
// the failed answer (clipped to about 1,000 tokens).
func (b *bound) retried(a *Agent, mode string, shown int) {
	b.call(a, mode, shown)
	b.call(a, mode, shown+min(b.maxOut(a), 1000)+100)
}

func (b *bound) magi(members []*Agent) {
	outs := 0
	for _, m := range members {
		outs += b.maxOut(m)
	}
	for _, m := range members {
		own := b.maxOut(m)
		b.retried(m, "magi", 0)        // round 1: alone
		b.retried(m, "magi", outs-own) // round 2: the others' round-1 opinions
		b.retried(m, "magi", own+outs) // round 3: its own round 1 and everyone's round 2
	}
}

func (b *bound) council(seats []*Agent) {
	if len(seats) < 2 {
		return
	}
	members, chair := seats[:len(seats)-1], seats[len(seats)-1]
	answers := 0
	for _, m := range members {
		answers += b.maxOut(m)
	}
	rankings := 0
	for _, m := range members {
		b.call(m, "council", 0)          // stage 1: its answer
		b.retried(m, "council", answers) // stage 2: ranks every answer
		rankings += b.maxOut(m)
	}
	b.call(chair, "council", answers+rankings) // stage 3: the chairman reads it all
}

// nullProvider stands in for a provider where no call is made.
type nullProvider struct{}

func (nullProvider) Name() string { return "none" }
func (nullProvider) Stream(context.Context, providers.Request) (providers.Stream, error) {
	return nil, errors.New("no calls: a worst-case estimate")
}
