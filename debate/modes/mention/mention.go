// Package mention is mention mode: @name or @all asks agents in parallel; a
// line without @ is a note.
package mention

import (
	"context"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/transcript"
)

// Mentions is a parsed input line of mention mode.
type Mentions struct {
	Names []string // addressed agents, lower case, each once, in the order typed
	All   bool     // @all was used
}

// Addressed reports whether the line asks anyone.
func (m Mentions) Addressed() bool { return m.All || len(m.Names) > 0 }

// ParseMentions reads the @names of a line. Mentions at the start of the line
// route it, and an unknown one there is refused with the known names. Further
// into the line, an @name of a known agent also addresses it ("what do you
// think, @claude?"), while any other @word is plain text (e-mail addresses,
// Java annotations).
func ParseMentions(line string, known []string) (Mentions, error) {
	var m Mentions
	add := func(name string) {
		if name == "all" {
			m.All = true
			return
		}
		for _, n := range m.Names {
			if n == name {
				return
			}
		}
		m.Names = append(m.Names, name)
	}
	isKnown := func(name string) bool {
		if name == "all" {
			return true
		}
		for _, k := range known {
			if k == name {
				return true
			}
		}
		return false
	}
	leading := true
	for _, field := range strings.Fields(line) {
		name, ok := mentionName(field)
		if !ok {
			leading = false
			continue
		}
		switch {
		case isKnown(name):
			add(name)
		case leading:
			return Mentions{}, &debate.UnknownAgentError{Name: name, Known: known}
		}
	}
	return m, nil
}

// asksSomething reports whether line holds anything besides mentions of
// known agents and @all: a line of names alone asks no question.
func asksSomething(line string, known []string) bool {
	for _, field := range strings.Fields(line) {
		name, ok := mentionName(field)
		if !ok || name != "all" && !slices.Contains(known, name) {
			return true
		}
	}
	return false
}

// mentionName returns the lower-cased name of a word like "@Gemini," or "@all:".
func mentionName(word string) (string, bool) {
	if len(word) < 2 || word[0] != '@' {
		return "", false
	}
	name := strings.TrimRightFunc(word[1:], func(r rune) bool {
		return unicode.IsPunct(r) && r != '_' && r != '-'
	})
	if name == "" {
		return "", false
	}
	for _, r := range name {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.') {
			return "", false
		}
	}
	return strings.ToLower(name), true
}

// Mention is the default mode: @name asks agents, plain lines are notes.
type Mention struct {
	engine debate.Session
	mu     sync.Mutex
	asked  []string // names of @all's agents plus anyone addressed since
}

// Spec describes mention mode; debate/modes.All lists it.
type Spec struct{}

func (Spec) Info() config.ModeInfo {
	return config.ModeInfo{Name: debate.ModeMention, Key: "alt+1", Title: "@name or @all asks agents; a plain line is a note",
		Input:         "@gemini …, @claude @chatgpt …, @all …; a line without @ is a note",
		ContextTokens: 12000,
		RoutesNames:   true,
		Hint:          "@name or @all asks; plain lines are notes",
		Placeholder:   "@all ask everyone · @name one agent · plain text is a note · /help",
		Examples: []config.Example{
			{Line: "@all compare Kafka and NATS for a small team", Does: "every agent answers"},
			{Line: "@{first} what would you measure first?", Does: "one agent answers"},
			{Line: "we expect 10k messages a second", Does: "a plain line is a note"},
		}}
}

func (Spec) New(e debate.Session) (debate.Mode, error) { return newMention(e) }

func (Spec) Check(k *config.ConfigCheck) error {
	names := k.Config.Modes.Mention.Agents
	if err := k.Agents("modes.mention.agents", names, 0); err != nil {
		return err
	}
	if len(names) == 0 {
		return k.Bad("modes.mention.agents", "needs at least one agent for @all")
	}
	return nil
}

func (Spec) Budget(c *config.Config) float64               { return c.Modes.Mention.BudgetUSD }
func (Spec) Context(c *config.Config) config.ContextBudget { return c.Context.Mention }

// Seated are the agents @all asks.
func (Spec) Seated(c *config.Config) []string { return c.Modes.Mention.Agents }

func (Spec) Seat(c *config.Config, names []string) {
	c.Modes.Mention.Agents = slices.Clone(names)
}

func newMention(e debate.Session) (debate.Mode, error) {
	if _, err := e.Resolve(e.Configuration().Modes.Mention.Agents); err != nil {
		return nil, err
	}
	seated, _ := e.AllSeated()
	m := &Mention{engine: e}
	for _, a := range seated {
		m.asked = append(m.asked, a.Name)
	}
	return m, nil
}

// Name implements Mode.
func (m *Mention) Name() string { return debate.ModeMention }

// SeatingLine says whom @all asks and whom it skips for want of a key.
func (m *Mention) SeatingLine() string { return m.engine.AllLine() }

// Agents implements Mode: @all's agents in the order their list gives
// (modes.mention.agents: a session created with agents keeps the order it
// named them in), then any other agent addressed so far, in configuration
// order. The order never changes under a line: a panel does not move.
func (m *Mention) Agents() []*debate.Agent {
	m.mu.Lock()
	defer m.mu.Unlock()
	out, _ := m.engine.AllSeated()
	for _, a := range m.engine.AgentsOf(m.asked) {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// IsNote reports whether a line would be kept as a note without any call.
func (m *Mention) IsNote(line string) bool {
	ms, err := ParseMentions(line, m.engine.AgentNames())
	return err == nil && !ms.Addressed()
}

// Targets resolves a parsed line to agents in configuration order: @all
// asks the agents listed for it that sit on their own provider's key.
func (m *Mention) Targets(ms Mentions) []*debate.Agent {
	names := append([]string(nil), ms.Names...)
	if ms.All {
		asked, _ := m.engine.AllSeated()
		for _, a := range asked {
			names = append(names, a.Name)
		}
	}
	return m.engine.AgentsOf(names)
}

// skippedNote names, once per session, whom the first accepted @all
// skipped, in a note of its own; the state that says it was named is set
// by remember, once the line is accepted (a refused line keeps nothing).
func (m *Mention) skippedNote(ms Mentions) []transcript.Entry {
	e := m.engine
	if !ms.All || e.State(allSkippedState) != "" {
		return nil
	}
	line := e.AllLine()
	if line == "" {
		return nil
	}
	return []transcript.Entry{{Kind: transcript.KindNote, Speaker: transcript.SpeakerSystem, Display: "Parley", Text: line}}
}

// allSkippedState records that @all's skipped agents were named.
const allSkippedState = "mention.all_skipped"

// Submit implements Mode. A line without mentions becomes a note; an
// unknown @name is refused before anything is appended; otherwise every
// addressed agent answers in parallel, each seeing the history up to the
// question and none seeing another's answer of the same round.
func (m *Mention) Submit(ctx context.Context, line string) error {
	return m.SubmitNamed(ctx, line, debate.NamedAskStarted{})
}

// Named implements debate.NameRouter: the names a line starts with, nil
// when it starts with none or they include @all.
func (m *Mention) Named(line string) []string {
	var names []string
	for _, field := range strings.Fields(line) {
		name, ok := mentionName(field)
		if !ok {
			break
		}
		if name == "all" {
			return nil
		}
		names = append(names, name)
	}
	return names
}

// SubmitNamed implements debate.NameRouter: Submit, announcing a named ask
// typed in another mode once the line is accepted.
func (m *Mention) SubmitNamed(ctx context.Context, line string, named debate.NamedAskStarted) error {
	plan, err := m.plan(strings.TrimSpace(line), named)
	if err != nil || plan == nil {
		return err
	}
	return m.engine.Carry(ctx, *plan)
}

// plan decides what a line asks of the session: a note, or a question the
// addressed agents answer in parallel; nil for an empty line. The line's
// own refusals (an unknown @name, names without a question) come here;
// the session's (a named agent without its key, @all asking nobody, an
// unpriced agent under a cap) come in Carry, before anything is kept.
func (m *Mention) plan(line string, named debate.NamedAskStarted) (*debate.Plan, error) {
	e := m.engine
	if line == "" {
		return nil, nil
	}
	ms, err := ParseMentions(line, e.AgentNames())
	if err != nil {
		return nil, err
	}
	if !ms.Addressed() {
		return &debate.Plan{Line: transcript.Entry{Kind: transcript.KindNote, Speaker: transcript.SpeakerUser, Text: line}}, nil
	}
	if !asksSomething(line, e.AgentNames()) {
		return nil, &debate.NoQuestionError{Line: line}
	}
	targets := m.Targets(ms)
	notes := m.skippedNote(ms)
	plan := &debate.Plan{
		Mentioned: ms.Names, Accepted: func() { m.remember(targets, len(notes) > 0) },
		Notes: notes, Title: line, Named: named,
		Line: transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: line},
	}
	for _, a := range targets {
		plan.Turns = append(plan.Turns, debate.PlannedTurn{
			Spec: debate.TurnSpec{Agent: a, Kind: transcript.KindReply, Prompt: line, Instruction: mentionInstruction, Answer: true},
			View: debate.Prompt{Mode: "mention", Self: a.Name},
		})
	}
	return plan, nil
}

const mentionInstruction = "The host addressed you by name. Answer the host's latest message directly and concisely, in Markdown. You may refer to what other agents said earlier."

// remember keeps, once a line is accepted, whom it asked (their panels
// show from then on) and that @all's skipped agents were named.
func (m *Mention) remember(agents []*debate.Agent, skippedNamed bool) {
	if skippedNamed {
		m.engine.SetState(allSkippedState, "named")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, a := range agents {
		if !slices.Contains(m.asked, a.Name) {
			m.asked = append(m.asked, a.Name)
		}
	}
}
