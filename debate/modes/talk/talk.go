// Package talk is talk mode: two guests discuss a topic, led by an MC.
package talk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
)

// Session state keys of talk mode: who took part, for the store's meta row.
const (
	StateTalkA         = "talk.a"
	StateTalkB         = "talk.b"
	StateTalkModerator = "talk.moderator"
)

// DefaultTalkRounds is used when modes.talk.rounds is 0.
const DefaultTalkRounds = 3

// ErrNoTopic is returned when a talk is started without a topic.
var ErrNoTopic = errors.New("talk: a topic is required")

// Talk is a moderated conversation: the MC opens (the talk's first turn,
// round 0), then each round guest A
// and guest B speak and the MC sums the round up; the MC closes. Once the
// transcript outgrows the talk's context budget, older turns are condensed
// into summaries (compact.go), so prompts stay bounded however long the
// talk runs.
type Talk struct {
	engine   debate.Session
	a, b, mc *debate.Agent
	pace     time.Duration

	mu       sync.Mutex
	rounds   int
	stopping bool
	byHost   bool            // the host stopped the talk at a checkpoint
	dropped  map[string]bool // guests the host dropped, by name
	gate     chan struct{}   // non-nil while paused; closed to go on
	calls    int             // calls made in the current talk (pace applies between them)
}

// Spec describes talk mode; debate/modes.All lists it.
type Spec struct{}

func (Spec) Info() config.ModeInfo {
	return config.ModeInfo{Name: debate.ModeTalk, Key: "alt+3", Title: "two guests and an MC in a moderated talk",
		Input: "the topic of the talk", Roles: []string{"guest A", "guest B", "MC"},
		Controls: []config.ControlKind{config.ControlPause, config.ControlContinue, config.ControlStop, config.ControlRounds},
		Seats:    config.SeatRange{Min: 2, Max: 3}, ContextTokens: 10000,
		Hint:        "type the topic; /rounds N, /pause, /resume, /stop",
		Placeholder: "the topic of the talk · /rounds N first to change the rounds · /help",
		Examples: []config.Example{
			{Line: "Is remote work here to stay?", Does: "the topic: the MC opens the talk"},
			{Line: "/rounds 2", Does: "before the topic: two rounds"},
			{Line: "/pause  /resume  /stop", Does: "hold or end a running talk"},
		}}
}

func (Spec) New(e debate.Session) (debate.Mode, error) { return newTalk(e) }

func (Spec) Check(k *config.ConfigCheck) error {
	t := k.Config.Modes.Talk
	for _, seat := range []struct{ key, name string }{{"a", t.A}, {"b", t.B}, {"moderator", t.Moderator}} {
		if err := k.Agent("modes.talk."+seat.key, seat.name); err != nil {
			return err
		}
	}
	switch {
	case t.Rounds < 0:
		return k.Bad("modes.talk.rounds", "must not be negative")
	case t.Rounds > config.MaxRounds:
		return k.Bad("modes.talk.rounds", "%d is over %d", t.Rounds, config.MaxRounds)
	case t.BudgetTokens > config.MaxBudgetTokens:
		return k.Bad("modes.talk.budget_tokens", "%d is over %d", t.BudgetTokens, config.MaxBudgetTokens)
	}
	if _, err := checkpoint.ParsePolicy(t.Checkpoint); err != nil {
		return k.Bad("modes.talk.checkpoint", "%s", err.Error())
	}
	return nil
}

func (Spec) Budget(c *config.Config) float64 { return c.Modes.Talk.BudgetUSD }

// Context is context.talk, whose budget falls back on modes.talk.budget_tokens.
func (Spec) Context(c *config.Config) config.ContextBudget {
	own := c.Context.Talk
	if own.BudgetTokens == 0 {
		own.BudgetTokens = c.Modes.Talk.BudgetTokens
	}
	return own
}

// Seated are the guests and the MC.
func (Spec) Seated(c *config.Config) []string {
	return []string{c.Modes.Talk.A, c.Modes.Talk.B, c.Modes.Talk.Moderator}
}

// Seat seats guest A, guest B and, when named, the MC.
func (Spec) Seat(c *config.Config, names []string) {
	c.Modes.Talk.A, c.Modes.Talk.B = names[0], names[1]
	if len(names) == 3 {
		c.Modes.Talk.Moderator = names[2]
	}
}

func newTalk(e debate.Session) (debate.Mode, error) {
	c := e.Configuration().Modes.Talk
	agents, err := e.MustAgents(c.A, c.B, c.Moderator)
	if err != nil {
		return nil, err
	}
	if c.A == c.B || c.A == c.Moderator || c.B == c.Moderator {
		// One agent in two seats would read its own words as another's.
		return nil, &config.ConfigError{File: e.Configuration().Source, Key: "modes.talk", Problem: fmt.Sprintf("a, b and moderator must be three different agents (have %s, %s, %s)", c.A, c.B, c.Moderator)}
	}
	rounds := c.Rounds
	if rounds <= 0 {
		rounds = DefaultTalkRounds
	}
	return &Talk{engine: e, a: agents[0], b: agents[1], mc: agents[2], pace: c.Pace, rounds: rounds}, nil
}

// Name implements Mode.
func (m *Talk) Name() string { return debate.ModeTalk }

// Agents implements Mode: guest A, guest B, the MC.
func (m *Talk) Agents() []*debate.Agent { return m.seats() }

// Control implements Controller. Pause holds the talk before its next turn
// (the current one finishes) until continue or stop; stop ends it early:
// the current turn finishes, then the MC closes. Rounds sets the length of
// the next talk.
func (m *Talk) Control(c debate.Control) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch c.Kind {
	case config.ControlRounds:
		m.rounds = max(c.N, 1)
	case config.ControlPause:
		if m.gate == nil {
			m.gate = make(chan struct{})
		}
	case config.ControlContinue:
		m.open()
	case config.ControlStop:
		m.stopping = true
		m.open()
	}
	return nil
}

func (m *Talk) open() {
	if m.gate != nil {
		close(m.gate)
		m.gate = nil
	}
}

func (m *Talk) stopped() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stopping
}

// Submit implements Mode: it runs a whole talk on topic and returns when
// the MC has closed it. A failed turn is kept as an error row and the talk
// goes on; the returned error joins every failure (or is the cancel).
func (m *Talk) Submit(ctx context.Context, topic string) error {
	topic = strings.TrimSpace(topic)
	if topic == "" {
		return ErrNoTopic
	}
	e := m.engine
	m.mu.Lock()
	m.stopping, m.byHost, m.calls, m.dropped = false, false, 0, map[string]bool{}
	m.open() // a pause left over from an earlier talk must not hold this one
	rounds := m.rounds
	m.mu.Unlock()

	e.SetTitle(topic, topic)
	for key, a := range map[string]*debate.Agent{StateTalkA: m.a, StateTalkB: m.b, StateTalkModerator: m.mc} {
		if e.State(key) != a.Name {
			e.SetState(key, a.Name)
		}
	}
	// The MC's opening is the talk's first turn, as in the seed: the topic
	// is the session's (conversation_meta.topic) and each turn's cue, not a
	// log row of its own, so no prompt carries it twice.
	tr := &talkRun{tk: talkContext{start: e.History().Len() + 1, topic: topic, rounds: rounds}, done: dialogue.TalkFinished{Topic: topic}}
	tr.turn(ctx, m, func() debate.TurnSpec { return m.moderatorSpec(ctx, tr.tk, 0, phaseOpen) }, false)
	return m.carry(ctx, tr, 0, nil)
}

// talkRun is one talk under way: what every turn needs and what the
// outcome counts.
type talkRun struct {
	tk   talkContext
	done dialogue.TalkFinished
	errs []error
}

// turn waits out a Pause and the pace, then builds the turn, so it sees
// everything said meanwhile. A Stop given while the talk was held skips
// every turn but the closing.
func (tr *talkRun) turn(ctx context.Context, m *Talk, spec func() debate.TurnSpec, closing bool) (transcript.Entry, bool) {
	if err := m.wait(ctx); err != nil || (m.stopped() && !closing) {
		return transcript.Entry{}, false
	}
	en, err := m.engine.Reserve(spec()).Run(ctx)
	if err != nil {
		tr.errs = append(tr.errs, err)
	}
	tr.done.Turns++
	tr.done.Usage = tr.done.Usage.Add(en.Usage)
	tr.done.Cost += en.Cost
	return en, true
}

// carry runs the talk's rounds after round (its last finished one; a
// resumed talk first has the host answer at the point it waited at, p),
// then the MC's closing, and reports the outcome.
func (m *Talk) carry(ctx context.Context, tr *talkRun, round int, p *checkpoint.Point) error {
	e, tk := m.engine, tr.tk
	hostGone := false
	if p != nil {
		if err := m.answerAt(ctx, *p); err != nil {
			tr.errs, hostGone = append(tr.errs, err), true
		}
	}
	for r := round + 1; r <= tk.rounds && !m.stopped() && ctx.Err() == nil && !hostGone; r++ {
		round = r
		for _, guest := range m.guests() {
			if m.stopped() || ctx.Err() != nil {
				break
			}
			tr.turn(ctx, m, func() debate.TurnSpec { return m.guestSpec(ctx, tk, guest, r) }, false)
		}
		if m.stopped() || ctx.Err() != nil {
			break
		}
		if en, ok := tr.turn(ctx, m, func() debate.TurnSpec { return m.moderatorSpec(ctx, tk, r, phaseSummary) }, false); ok {
			e.Emit(dialogue.TalkRoundSummarised{Round: r, Summary: en})
			if r < tk.rounds && ctx.Err() == nil {
				if err := m.checkpoint(ctx, tr, r, en); err != nil {
					tr.errs, hostGone = append(tr.errs, err), true
					break // the host could not be asked: the talk ends here, no closing
				}
			}
		}
	}
	if ctx.Err() == nil && !hostGone {
		tr.turn(ctx, m, func() debate.TurnSpec { return m.moderatorSpec(ctx, tk, round+1, phaseClose) }, true)
	}
	done := tr.done
	m.mu.Lock()
	done.ByHost = m.byHost
	m.mu.Unlock()
	done.Rounds, done.Stopped, done.Cancelled, done.Planned = round, m.stopped(), ctx.Err() != nil || hostGone, tk.rounds
	done.Sentence = dialogue.TalkSentence(done)
	e.Emit(done)
	e.AddOutcome("Talk", done.Sentence)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return errors.Join(tr.errs...)
}

// wait honours a Pause and, between calls, the configured pace.
func (m *Talk) wait(ctx context.Context) error {
	m.mu.Lock()
	gate := m.gate
	first := m.calls == 0
	m.calls++
	m.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if first || m.pace <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(m.pace)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// talkContext is what every turn of one talk needs to know.
type talkContext struct {
	start  int // turn number of the MC's opening, the talk's first
	topic  string
	rounds int
}

type talkPhase int

const (
	phaseOpen talkPhase = iota
	phaseSummary
	phaseClose
)

// The MC's instruction names no phase (and avoids the words the offline demo
// keys on): the cue in the last message says what to do now.
const talkModeratorInstruction = `You are the MC of this talk, not a guest. The host chose the topic; the guests are %[1]s and %[2]s, who speak in turn, %[1]s first, for %[3]d rounds. You welcome the audience at the start, give a fair recap after each round, and give the final word at the end; you never argue a side yourself. The last message, from Parley, tells you which of these to do now. Keep every turn short: a few sentences, under 150 words, Markdown without headings. Address the guests by name, keep them on the topic, point out where they agree and where they still differ, and ask one sharp question when it helps the next round along.`

// After the host drops a guest the instructions name the one left as the
// only guest, and the dropped one as gone, so nobody gives it the floor or
// answers it as if it still spoke (its earlier turns stay in the transcript).
const talkSoloModeratorInstruction = `You are the MC of this talk, not a guest. The host chose the topic; the guest now is %[1]s alone: the host dropped %[2]s from the talk, so do not give %[2]s the floor or ask them anything (their earlier turns stay in the transcript). The talk runs for %[3]d rounds. You give a fair recap after each round and the final word at the end; you never argue a side yourself. The last message, from Parley, tells you which of these to do now. Keep every turn short: a few sentences, under 150 words, Markdown without headings. Address the guest by name, keep them on the topic, and ask one sharp question when it helps the next round along.`

const talkSoloGuestInstruction = `This is a talk led by %[1]s, the MC, on a topic the host chose. You are its only guest now: the host dropped %[2]s from the talk, so do not address %[2]s or answer them as if they were still speaking (you may refer to what they said earlier). Speak in your own voice and persona, answer the MC's questions, keep each turn under 150 words, in Markdown without headings, and do not speak for anyone else.`

const talkGuestInstruction = `This is a talk led by %[1]s, the MC, on a topic the host chose. You are one of its two guests; the other is %[2]s. Speak in your own voice and persona, answer the MC's questions, and respond to %[2]s's points directly, agreeing or disagreeing with reasons. Keep each turn under 150 words, in Markdown without headings, and do not speak for anyone else.`

func (m *Talk) moderatorSpec(ctx context.Context, tk talkContext, round int, phase talkPhase) debate.TurnSpec {
	var cue, purpose string
	switch phase {
	case phaseOpen:
		purpose = providers.PurposeOpen
		cue = fmt.Sprintf("MC, your turn: open the talk. Welcome the audience, introduce the topic and the two guests, %s and %s, and give %s the floor.", m.a.Label(), m.b.Label(), m.a.Label())
	case phaseSummary:
		purpose = providers.PurposeSummary
		cue = fmt.Sprintf("MC, your turn: summarise round %d of %d in a few sentences: the points made, where the guests agree, the open questions.", round, tk.rounds)
		if round == tk.rounds {
			// The last recap: the closing follows, no round does.
			cue = fmt.Sprintf("MC, your turn: summarise round %d of %d, the last one, in a few sentences: the points made, where the guests agree, what stays open. Do not announce another round: your closing words come next.", round, tk.rounds)
		}
	case phaseClose:
		purpose = providers.PurposeClose
		cue = dialogue.TalkClosingCue
	}
	return debate.TurnSpec{
		Agent: m.mc, Kind: transcript.KindModerator, IsModerator: true, Round: round, Prompt: cue, Purpose: purpose, Rounds: tk.rounds,
		Instruction: m.moderatorInstruction(tk.rounds),
		Messages:    withCue(m.view(ctx, m.mc, tk), cue, tk.topic),
	}
}

// moderatorInstruction names the guests still in the talk.
func (m *Talk) moderatorInstruction(rounds int) string {
	guests := m.guests()
	if len(guests) == 1 {
		gone := m.a
		if guests[0] == m.a {
			gone = m.b
		}
		return fmt.Sprintf(talkSoloModeratorInstruction, guests[0].Label(), gone.Label(), rounds)
	}
	return fmt.Sprintf(talkModeratorInstruction, m.a.Label(), m.b.Label(), rounds)
}

func (m *Talk) guestSpec(ctx context.Context, tk talkContext, guest *debate.Agent, round int) debate.TurnSpec {
	other := m.b
	if guest == m.b {
		other = m.a
	}
	cue := fmt.Sprintf("%s, your turn (round %d of %d).", guest.Label(), round, tk.rounds)
	instruction := fmt.Sprintf(talkGuestInstruction, m.mc.Label(), other.Label())
	if m.isDropped(other) {
		instruction = fmt.Sprintf(talkSoloGuestInstruction, m.mc.Label(), other.Label())
	}
	return debate.TurnSpec{
		Agent: guest, Kind: transcript.KindReply, Round: round, Prompt: cue, Rounds: tk.rounds,
		Instruction: instruction,
		Messages:    withCue(m.view(ctx, guest, tk), cue, tk.topic),
	}
}

// withCue ends the messages with Parley's cue and the topic as the host's
// words (the topic last, so it reads as the question on the table). It is
// the only place a request holds the topic.
func withCue(msgs []providers.Message, cue, topic string) []providers.Message {
	text := "[Parley]: " + cue + "\n\n[" + debate.HostName + "]: " + topic
	if n := len(msgs); n > 0 && msgs[n-1].Role == providers.RoleUser {
		msgs[n-1].Content += "\n\n" + text
		return msgs
	}
	return append(msgs, providers.Message{Role: providers.RoleUser, Content: text})
}

// view is what agent self receives before a turn: the talk's history within
// its budget, the MC's opening always included.
func (m *Talk) view(ctx context.Context, self *debate.Agent, tk talkContext) []providers.Message {
	return m.engine.PromptFor(ctx, debate.Prompt{Mode: "talk", Self: self.Name, Pin: []int{tk.start}})
}
