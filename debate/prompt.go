package debate

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
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
	e.Compact(ctx, b)
	return BuildPrompt(e.History(), p, b)
}

// BuildPrompt assembles the messages of p from h within b, without
// compacting. Every message but the last is followed by one of the other
// role, so it reaches the agent's next call unchanged (Turn.Run tells the
// provider so, for its prompt cache).
func BuildPrompt(h *History, p Prompt, b config.Budget) []providers.Message {
	v := View{Self: p.Self, OthersTools: p.OthersTools}
	covered := h.Compacted()
	maxEntry := max(b.Verbatim/2, 256) * 4 // bytes one entry may take
	// The question being asked is never cut: the host's latest message goes
	// whole (Turn.Run refuses a prompt over the model's context window
	// before the call instead).
	question, _ := h.latestUser()
	clipped := func(en Entry, m providers.Message) providers.Message {
		if en.Turn != question.Turn || question.Turn == 0 {
			m.Content = sanitize.Clip(m.Content, maxEntry)
		}
		return m
	}
	// The verbatim part, newest first. Compaction keeps it within the
	// budget; the hard stop at twice that bounds the work should a
	// summariser have failed.
	var tail []providers.Message
	var shown []int
	used := 0
	for en := range h.Walk() {
		if en.Turn <= covered || used > 2*b.Verbatim {
			break
		}
		if en.Kind == KindSummary {
			continue
		}
		m, ok := messageOf(*en, v)
		if !ok {
			continue
		}
		m = clipped(*en, m)
		used += EstimateTokens(m.Content)
		tail = append(tail, m)
		shown = append(shown, en.Turn)
	}
	oldestShown := covered + 1
	if n := len(shown); n > 0 {
		oldestShown = shown[n-1]
	}
	items := make([]providers.Message, 0, len(tail)+3)
	if sums := h.summariesWithin(b.Summary); len(sums) > 0 {
		var s strings.Builder
		s.WriteString("[Parley]: Earlier turns are condensed below to fit the context budget; the turns after them follow verbatim.")
		for i := len(sums) - 1; i >= 0; i-- {
			fmt.Fprintf(&s, "\n\n[Summary up to turn %d]: %s", sums[i].Covers, strings.TrimSpace(sums[i].Text))
		}
		items = append(items, providers.Message{Role: providers.RoleUser, Content: s.String()})
	}
	var pins []Entry
	if p.PinLatestUser {
		if en, ok := h.latestUser(); ok && en.Turn < oldestShown {
			pins = append(pins, en)
		}
	}
	for _, turn := range p.Pin {
		if en, ok := h.Get(turn); ok && turn < oldestShown && (len(pins) == 0 || pins[0].Turn != turn) {
			pins = append(pins, en)
		}
	}
	if len(pins) == 2 && pins[1].Turn < pins[0].Turn {
		pins[0], pins[1] = pins[1], pins[0]
	}
	for _, en := range pins {
		if m, ok := messageOf(en, v); ok {
			items = append(items, clipped(en, m))
		}
	}
	for i := len(tail) - 1; i >= 0; i-- {
		items = append(items, tail[i])
	}
	return MergeRoles(items)
}

// maxModelSummaries bounds the summariser calls made before one prompt (a
// resumed session written with a larger budget may need many blocks; the
// next prompts go on). Extractive digests cost no call and are not bounded.
const maxModelSummaries = 8
