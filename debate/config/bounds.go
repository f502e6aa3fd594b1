package config

import "fmt"

// Upper bounds of the configuration. Each is far above any real use and
// far below what would exhaust memory, a wallet or a context window by
// a typo (`rounds: 1000000000`, a 50 MB persona); `parley config check`
// refuses a value past them, naming the file, line and key.
const (
	MaxRounds       = 100      // modes.talk.rounds, talk --rounds
	MaxSteps        = 1000     // modes.agent.max_steps, alternate --steps
	maxAgents       = 64       // entries of agents
	maxPersonaBytes = 32 << 10 // agents[].persona: a system prompt
	maxNameBytes    = 80       // agents[].name and display
	MaxBudgetTokens = 2_000_000
	MaxOutputTokens = 1_000_000 // agents[].max_tokens, bench.max_tokens
)

// MaxTitleRunes bounds a session title a user gives (rename, /title, the
// API's title): every session list prints it on one line.
const MaxTitleRunes = 200

// checkBounds refuses values past the upper bounds.
func (c *Config) checkBounds(bad func(key, format string, args ...any) error) error {
	if len(c.Agents) > maxAgents {
		return bad("agents", "has %d entries, at most %d", len(c.Agents), maxAgents)
	}
	for i, a := range c.Agents {
		key := func() string { return fmt.Sprintf("agents[%d]", i) } // for the error only
		switch {
		case len(a.Persona) > maxPersonaBytes:
			return bad(key()+".persona", "is %d bytes, at most %d (%s)", len(a.Persona), maxPersonaBytes, Quote(a.Persona))
		case len(a.Name) > maxNameBytes:
			return bad(key()+".name", "is %d bytes, at most %d (%s)", len(a.Name), maxNameBytes, Quote(a.Name))
		case len(a.Display) > maxNameBytes:
			return bad(key()+".display", "is %d bytes, at most %d (%s)", len(a.Display), maxNameBytes, Quote(a.Display))
		case a.MaxTokens > MaxOutputTokens:
			return bad(key()+".max_tokens", "%d is over %d", a.MaxTokens, MaxOutputTokens)
		}
	}
	// A mode's own values are bounded by its Check.
	switch {
	case c.Context.BudgetTokens > MaxBudgetTokens:
		return bad("context.budget_tokens", "%d is over %d", c.Context.BudgetTokens, MaxBudgetTokens)
	case c.Bench.MaxTokens > MaxOutputTokens:
		return bad("bench.max_tokens", "%d is over %d", c.Bench.MaxTokens, MaxOutputTokens)
	}
	for _, s := range c.ModeList {
		if b := s.Context(c); b.BudgetTokens > MaxBudgetTokens || b.SummaryTokens > MaxBudgetTokens {
			return bad("context."+s.Info().Name, "budgets are at most %d tokens", MaxBudgetTokens)
		}
	}
	return nil
}
