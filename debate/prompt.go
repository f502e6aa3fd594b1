package debate

import (
	"context"

	"github.com/parleyhq/parley/providers"
)

// Prompt says whose prompt to build and how that agent sees the history.
type Prompt struct {
	Mode string // whose budget applies (Config.ContextBudget)
	Self string // the agent's name: its own turns become assistant messages
	// OthersTools includes other agents' tool calls and results (usually noise).
	OthersTools bool
	// PinLatestUser keeps the host's latest message in the prompt even once
	// it is older than the verbatim part (alternate: the instruction stands).
	PinLatestUser bool
	// Pin lists turns always shown verbatim (a talk's topic).
	Pin []int
}

// PromptFor builds the messages an agent receives: the newest summaries of
// older turns, the pinned entries, then every settled turn since the last
// summary verbatim. When that verbatim part has outgrown the mode's budget,
// its oldest block is first condensed into a summary entry, once: between
// compactions the prompt only grows at its end, so its prefix stays byte
// for byte the same and provider prompt caches apply. The work is bounded
// by the budget, not by the length of the session.
func (e *Engine) PromptFor(ctx context.Context, p Prompt) []providers.Message {
	b := e.Config.ContextBudget(p.Mode)
	e.compact(ctx, b)
	return BuildPrompt(e.History(), p, b)
}

// promptsOf builds every planned turn's prompt, in the plan's order.
func (e *Engine) promptsOf(ctx context.Context, turns []PlannedTurn) []TurnSpec {
	specs := make([]TurnSpec, len(turns))
	for i, t := range turns {
		specs[i] = t.Spec
		specs[i].Messages = e.PromptFor(ctx, t.View)
	}
	if len(specs) == 1 {
		specs[0].last = true // the plan is the whole exchange: nothing follows its one turn
	}
	return specs
}

// maxModelSummaries bounds the summariser calls made before one prompt (a
// resumed session written with a larger budget may need many blocks; the
// next prompts go on). Extractive digests cost no call and are not bounded.
const maxModelSummaries = 8
