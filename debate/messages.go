package debate

import (
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// HostName is how the user is named in prompts.
const HostName = "Host"

// View tells the message builder how one agent sees the history.
type View struct {
	Self string // the agent's name: its own turns become assistant messages
	// BudgetTokens bounds the estimated size of the result (0: no bound). Past
	// it, older entries are replaced by a summary: the latest moderator
	// summary when there is one, else an automatic digest.
	BudgetTokens int
	// OthersTools includes other agents' tool calls and results (usually noise).
	OthersTools bool
}

// BuildMessages turns the history into the messages one agent receives: its
// own replies as assistant, everything else as user content prefixed with the
// speaker ("[Gemini]: ..."). Consecutive messages of one role are merged and
// the list starts with a user message, as strict-alternation providers demand.
func BuildMessages(entries []transcript.Entry, v View) []providers.Message {
	var items []providers.Message
	for _, en := range entries {
		if m, ok := messageOf(en, v); ok {
			items = append(items, m)
		}
	}
	if v.BudgetTokens > 0 {
		items = window(items, entries, v)
	}
	return MergeRoles(items)
}

func messageOf(en transcript.Entry, v View) (providers.Message, bool) {
	if en.Status == transcript.StatusStreaming || en.Status == transcript.StatusError || en.Kind == transcript.KindError || en.Kind == transcript.KindSummary || en.IsStatusNote() {
		return providers.Message{}, false
	}
	text := strings.TrimSpace(en.Text)
	if text == "" && en.Kind != transcript.KindVerdict {
		return providers.Message{}, false
	}
	if en.Status == transcript.StatusCancelled || en.Status == transcript.StatusPartial {
		text += "\n[answer " + string(en.Status) + " here]"
	}
	own := en.Speaker == v.Self
	switch en.Kind {
	case transcript.KindUser:
		return providers.Message{Role: providers.RoleUser, Content: "[" + HostName + "]: " + text}, true
	case transcript.KindNote:
		return providers.Message{Role: providers.RoleUser, Content: "[" + HostName + " (note)]: " + text}, true
	case transcript.KindVerdict:
		return providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf("[MAGI verdict, round %d]: %s", en.Round, en.Vote)}, true
	case transcript.KindToolCall:
		if !own && !v.OthersTools {
			return providers.Message{}, false
		}
		if own {
			return providers.Message{Role: providers.RoleAssistant, Content: text}, true
		}
	case transcript.KindToolResult:
		if !own && !v.OthersTools {
			return providers.Message{}, false
		}
		return providers.Message{Role: providers.RoleUser, Content: "[tool result]: " + text}, true
	}
	if own {
		return providers.Message{Role: providers.RoleAssistant, Content: text}, true
	}
	return providers.Message{Role: providers.RoleUser, Content: "[" + displayName(en) + "]: " + text}, true
}

func displayName(en transcript.Entry) string {
	if en.Display != "" {
		return en.Display
	}
	return en.Speaker
}

// window keeps the newest messages that fit in the budget and puts a summary
// of the rest first. The summary itself is capped to a quarter of the budget,
// so the prompt stays bounded however long the session grows.
func window(items []providers.Message, entries []transcript.Entry, v View) []providers.Message {
	total := 0
	for _, m := range items {
		total += transcript.EstimateTokens(m.Content)
	}
	if total <= v.BudgetTokens {
		return items
	}
	summaryCap := v.BudgetTokens / 4
	keepBudget := v.BudgetTokens - summaryCap
	kept, used := 0, 0
	for i := len(items) - 1; i >= 0; i-- {
		t := transcript.EstimateTokens(items[i].Content)
		if used+t > keepBudget && kept > 0 {
			break
		}
		used += t
		kept++
	}
	dropped := items[:len(items)-kept]
	summary := summarize(dropped, entries, summaryCap*4)
	out := make([]providers.Message, 0, kept+1)
	out = append(out, providers.Message{Role: providers.RoleUser, Content: summary})
	return append(out, items[len(items)-kept:]...)
}

// summarize prefers the latest moderator summary among the entries; without
// one it digests the dropped messages to their first line each, newest last.
func summarize(dropped []providers.Message, entries []transcript.Entry, maxBytes int) string {
	head := fmt.Sprintf("[Summary of %d earlier messages, cut to fit the context budget]: ", len(dropped))
	for i := len(entries) - 1; i >= 0; i-- {
		if en := entries[i]; en.IsModerator && en.Status == transcript.StatusComplete && en.Text != "" {
			return head + sanitize.Clip("latest moderator summary: "+en.Text, maxBytes)
		}
	}
	var lines []string
	size := 0
	for i := len(dropped) - 1; i >= 0; i-- {
		line := sanitize.Clip(sanitize.FirstLine(dropped[i].Content, 200), 200)
		if size+len(line) > maxBytes {
			break
		}
		size += len(line) + 1
		lines = append(lines, line)
	}
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	return head + "\n" + strings.Join(lines, "\n")
}

func MergeRoles(items []providers.Message) []providers.Message {
	var out []providers.Message
	for _, m := range items {
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			out[n-1].Content += "\n\n" + m.Content
			continue
		}
		out = append(out, m)
	}
	if len(out) > 0 && out[0].Role == providers.RoleAssistant {
		out = append([]providers.Message{{Role: providers.RoleUser, Content: "[" + HostName + "]: (the conversation so far follows)"}}, out...)
	}
	return out
}

// BuildPrompt assembles the messages of p from h within b, without
// compacting. Every message but the last is followed by one of the other
// role, so it reaches the agent's next call unchanged (Turn.Run tells the
// provider so, for its prompt cache).
func BuildPrompt(h *transcript.History, p Prompt, b config.Budget) []providers.Message {
	v := View{Self: p.Self, OthersTools: p.OthersTools}
	covered := h.Compacted()
	maxEntry := max(b.Verbatim/2, 256) * 4 // bytes one entry may take
	// The question being asked is never cut: the host's latest message goes
	// whole (Turn.Run refuses a prompt over the model's context window
	// before the call instead).
	question, _ := h.LatestUser()
	clipped := func(en transcript.Entry, m providers.Message) providers.Message {
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
		if en.Kind == transcript.KindSummary {
			continue
		}
		m, ok := messageOf(*en, v)
		if !ok {
			continue
		}
		m = clipped(*en, m)
		used += transcript.EstimateTokens(m.Content)
		tail = append(tail, m)
		shown = append(shown, en.Turn)
	}
	oldestShown := covered + 1
	if n := len(shown); n > 0 {
		oldestShown = shown[n-1]
	}
	items := make([]providers.Message, 0, len(tail)+3)
	if sums := h.SummariesWithin(b.Summary); len(sums) > 0 {
		var s strings.Builder
		s.WriteString("[Parley]: Earlier turns are condensed below to fit the context budget; the turns after them follow verbatim.")
		for i := len(sums) - 1; i >= 0; i-- {
			fmt.Fprintf(&s, "\n\n[Summary up to turn %d]: %s", sums[i].Covers, strings.TrimSpace(sums[i].Text))
		}
		items = append(items, providers.Message{Role: providers.RoleUser, Content: s.String()})
	}
	var pins []transcript.Entry
	if p.PinLatestUser {
		if en, ok := h.LatestUser(); ok && en.Turn < oldestShown {
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
