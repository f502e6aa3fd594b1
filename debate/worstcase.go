package debate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/transcript"
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

// WorstCaser is a mode descriptor that can bound one exchange of its
// mode (MAGI's council, the council): WorstCase adds each call the mode m
// would make to b and names the exchange.
type WorstCaser interface {
	WorstCase(b *Bound, m Mode) string
}

// WorstCases bounds one exchange of every mode whose descriptor is a
// WorstCaser, with the configuration at day at: each call's prompt is its
// system prompt, the mode's instructions, a question of
// WorstQuestionTokens, the debate the mode reads (its context budget) and
// every earlier answer it is shown at its author's max_tokens; its output
// is its own max_tokens; every structured answer is retried once. The
// engine's cap checks each real call against its own worst case; this is
// the bound to choose a cap by.
func WorstCases(cfg *config.Config, at time.Time) ([]WorstCase, error) {
	var agents []*Agent
	for _, spec := range cfg.Agents {
		agents = append(agents, &Agent{AgentSpec: spec, Provider: nullProvider{}})
	}
	e, err := NewEngine(cfg, agents, "")
	if err != nil {
		return nil, err
	}
	var out []WorstCase
	for _, spec := range cfg.ModeList {
		wc, ok := spec.(WorstCaser)
		if !ok {
			continue
		}
		m, err := e.Mode(spec.Info().Name)
		if err != nil {
			return nil, err
		}
		b := &Bound{e: e, at: at, mode: spec.Info().Name}
		label := wc.WorstCase(b, m)
		out = append(out, WorstCase{Mode: label, Calls: b.calls, USD: b.usd, Unpriced: b.unpriced})
	}
	return out, nil
}

// Bound sums the worst cases of one exchange's calls.
type Bound struct {
	e        *Engine
	at       time.Time
	mode     string
	calls    int
	usd      float64
	unpriced string
}

// MaxOut is the output limit the engine sends for a.
func (b *Bound) MaxOut(a *Agent) int {
	if a.MaxTokens > 0 {
		return a.MaxTokens
	}
	return b.e.Config.ModelInfo(a.Model).DefaultMaxTokens()
}

// Call adds one call of a, reading shown more tokens than its base prompt.
func (b *Bound) Call(a *Agent, shown int) {
	in := transcript.EstimateTokens(SystemPrompt(a, "")) + worstInstructionTokens + WorstQuestionTokens +
		b.e.Config.ContextBudget(b.mode).Total + shown
	u := providers.Usage{InputTokens: in, CacheWriteTokens: in, OutputTokens: b.MaxOut(a)}
	written, ok := b.e.Config.CostAt(a.Model, u, b.at)
	u.CacheWriteTokens = 0
	plain, _ := b.e.Config.CostAt(a.Model, u, b.at)
	if !ok && b.unpriced == "" {
		b.unpriced = a.Model
	}
	b.calls++
	b.usd += max(written, plain)
}

// Retried adds a structured answer and its one retry, which also reads
// the failed answer (clipped to about 1,000 tokens).
func (b *Bound) Retried(a *Agent, shown int) {
	b.Call(a, shown)
	b.Call(a, shown+min(b.MaxOut(a), 1000)+100)
}

// nullProvider stands in for a provider where no call is made.
type nullProvider struct{}

func (nullProvider) Name() string { return "none" }
func (nullProvider) Stream(context.Context, providers.Request) (providers.Stream, error) {
	return nil, errors.New("no calls: a worst-case estimate")
}
