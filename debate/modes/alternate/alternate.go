// Package alternate is alternate mode: two agents take turns on the host's
// instructions, one answer per step.
package alternate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
)

// ErrNoInstruction is returned when alternate mode is started without one.
var ErrNoInstruction = errors.New("alternate: the start turn needs an instruction (the first agent answers it, then the second)")

// Alternate lets two agents take turns. The start turn has both answer the
// instruction, the second seeing the first; after that each step asks only
// the next responder, who sees the other's latest answer and the whole
// shared history. Asking one agent a step instead of both is the saving.
type Alternate struct {
	engine debate.Session
	pair   [2]*debate.Agent // configuration's order: the first answers first

	mu     sync.Mutex               // guards totals, and pair against Agents while a swap seats another agent
	totals dialogue.AlternateTokens // over the turns run since the mode was built
}

// Spec describes alternate mode; debate/modes.All lists it.
type Spec struct{}

func (Spec) Info() config.ModeInfo {
	return config.ModeInfo{Name: debate.ModeAlternate, Key: "alt+2", Title: "two agents take turns, one answer per step",
		Input: "an instruction; then Enter on an empty line runs the next step", Roles: []string{"first", "second"},
		Seats: config.SeatRange{Min: 2, Max: 2}, ContextTokens: 10000,
		Hint:        "enter on an empty line: next step",
		Placeholder: "an instruction for both agents · /help",
		Examples: []config.Example{
			{Line: "write a Go LRU cache with tests", Does: "one agent starts, the other answers"},
			{Line: "(enter on an empty line)", Does: "the next agent takes a step"},
			{Line: "now add benchmarks", Does: "a step with a new instruction"},
		},
		StepOnEmpty: true}
}

func (Spec) New(e debate.Session) (debate.Mode, error) { return newAlternate(e) }

func (Spec) Check(k *config.ConfigCheck) error {
	if _, err := checkpoint.ParsePolicy(k.Config.Modes.Alternate.Checkpoint); err != nil {
		return k.Bad("modes.alternate.checkpoint", "%s", err.Error())
	}
	return k.Agents("modes.alternate.agents", k.Config.Modes.Alternate.Agents, 2)
}

func (Spec) Budget(c *config.Config) float64               { return c.Modes.Alternate.BudgetUSD }
func (Spec) Context(c *config.Config) config.ContextBudget { return c.Context.Alternate }

// Seated are the pair.
func (Spec) Seated(c *config.Config) []string { return c.Modes.Alternate.Agents }

func (Spec) Seat(c *config.Config, names []string) {
	c.Modes.Alternate.Agents = slices.Clone(names)
}

func newAlternate(e debate.Session) (debate.Mode, error) {
	names := e.Configuration().Modes.Alternate.Agents
	if len(names) != 2 {
		return nil, &config.ConfigError{File: e.Configuration().Source, Key: "modes.alternate.agents", Problem: fmt.Sprintf("needs exactly 2 agents, has %d", len(names))}
	}
	agents, err := e.MustAgents(names...)
	if err != nil {
		return nil, err
	}
	if names[0] == names[1] {
		return nil, &config.ConfigError{File: e.Configuration().Source, Key: "modes.alternate.agents", Problem: fmt.Sprintf("needs two different agents, has %s twice", names[0])}
	}
	m := &Alternate{engine: e, pair: [2]*debate.Agent{agents[0], agents[1]}}
	if e.State(dialogue.StateStepNext) == "" {
		m.recoverState()
	}
	return m, nil
}

// recoverState works out who answers next, and the step count, from the
// history's alternate turns when the session carries no state for them (a
// fork, or a session that alternated before the state was saved). The rules
// are the ones start and step apply: after a usable answer the other agent
// speaks; a responder that left nothing keeps its turn.
func (m *Alternate) recoverState() {
	var last transcript.Entry
	step, started, found := 0, false, false
	for en := range m.engine.History().Walk() { // newest first
		if en.Mode != "alternate" || en.Kind != transcript.KindReply || (en.Speaker != m.pair[0].Name && en.Speaker != m.pair[1].Name) {
			continue
		}
		if !found {
			last, found = *en, true
		}
		step = max(step, en.Round)
		started = started || answered(*en)
	}
	if !started {
		return
	}
	next, _ := m.engine.Agent(last.Speaker)
	if answered(last) {
		next = m.other(next)
	}
	m.engine.SetState(dialogue.StateStepCount, strconv.Itoa(step))
	m.engine.SetState(dialogue.StateStepNext, next.Name)
}

// Name implements Mode.
func (m *Alternate) Name() string { return debate.ModeAlternate }

// Agents implements Mode: the two agents, first one first.
func (m *Alternate) Agents() []*debate.Agent {
	m.mu.Lock()
	defer m.mu.Unlock()
	return []*debate.Agent{m.pair[0], m.pair[1]}
}

// started reports whether the session has had its start turn.
func (m *Alternate) started() bool { return m.engine.State(dialogue.StateStepNext) != "" }

// next is the agent that answers the next step (the first before the start).
func (m *Alternate) next() *debate.Agent {
	name := m.engine.State(dialogue.StateStepNext)
	for _, a := range m.pair {
		if a.Name == name {
			return a
		}
	}
	if name != "" { // an agent a swap seated for its run: its seat is the one that did not answer last
		if last := m.lastSeatedSpeaker(); last != nil {
			return m.other(last)
		}
	}
	return m.pair[0] // not started, or the configuration changed since
}

// lastSeatedSpeaker is the agent of the pair that answered the latest
// alternate turn one of them answered (nil: none did).
func (m *Alternate) lastSeatedSpeaker() *debate.Agent {
	for en := range m.engine.History().Walk() { // newest first
		if en.Mode != debate.ModeAlternate || en.Kind != transcript.KindReply {
			continue
		}
		for _, a := range m.pair {
			if a.Name == en.Speaker {
				return a
			}
		}
	}
	return nil
}

func (m *Alternate) other(a *debate.Agent) *debate.Agent {
	if a == m.pair[0] {
		return m.pair[1]
	}
	return m.pair[0]
}

// Submit implements Mode. Before the start turn the input is the
// instruction both agents answer; after it every input (empty included) is
// one step by the next responder, the input being the step's optional
// instruction.
func (m *Alternate) Submit(ctx context.Context, input string) error {
	input = strings.TrimSpace(input)
	if !m.started() && input == "" {
		return ErrNoInstruction
	}
	done, err := m.runStep(ctx, input)
	if err != nil {
		return err
	}
	if ahead := m.engine.RunAhead(); ahead > 0 && ctx.Err() == nil {
		_, err = m.checkpoint(ctx, done, ahead)
	}
	return err
}

// runStep runs the start turn (before the session has had one) or one
// step, and announces it.
func (m *Alternate) runStep(ctx context.Context, input string) (dialogue.AlternateStepFinished, error) {
	var (
		turn dialogue.AlternateTurn
		err  error
	)
	if !m.started() {
		turn, err = m.start(ctx, input)
	} else {
		turn, err = m.step(ctx, input)
	}
	m.mu.Lock()
	m.totals.Used += turn.Tokens
	m.totals.Both += turn.BothTokens
	totals := m.totals
	m.mu.Unlock()
	done := dialogue.AlternateStepFinished{Step: turn.Step, Turn: turn, Tokens: turn.Tokens, BothTokens: turn.BothTokens,
		Totals: totals, NextDisplay: m.next().Label()}
	if turn.Err != nil {
		done.Error = turn.Err.Error()
	}
	done.Sentence = dialogue.StepSentence(done)
	m.engine.Emit(done)
	return done, err
}

const alternateInstruction = "You are taking turns with %[1]s on the host's instructions. Each turn, read %[1]s's latest answer and the whole conversation, then give your own answer: correct what is wrong, keep what is right, and move the work forward. If the host gave a new instruction, follow it. Answer in Markdown; do not repeat %[1]s's answer back."

func (m *Alternate) instruction(a *debate.Agent) string {
	return fmt.Sprintf(alternateInstruction, m.other(a).Label())
}

func (m *Alternate) newTurn(step int, instruction string) dialogue.AlternateTurn {
	return dialogue.AlternateTurn{
		Step: step, Instruction: instruction,
		Pair:    [2]string{m.pair[0].Name, m.pair[1].Name},
		Outputs: map[string]*string{m.pair[0].Name: nil, m.pair[1].Name: nil},
	}
}

// start: the first agent answers the instruction, then the second answers
// with the first's answer in its history.
func (m *Alternate) start(ctx context.Context, instruction string) (dialogue.AlternateTurn, error) {
	e := m.engine
	e.SetTitle(instruction, "")
	e.AddEntry(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: instruction, Prompt: instruction})
	turn := m.newTurn(0, instruction)
	next := m.pair[0]
	var errs []error
	someoneAnswered := false
	for _, a := range m.pair {
		if ctx.Err() != nil {
			break
		}
		en, err := m.answer(ctx, a, 0, instruction)
		m.record(&turn, a, en, err)
		if err != nil {
			errs = append(errs, err)
		}
		if answered(en) {
			next = m.other(a) // after a usable answer, the other one speaks
			someoneAnswered = true
		}
	}
	turn.BothTokens = turn.Tokens // both answered: nothing saved
	turn.Next = next.Name
	// A start nobody answered (cancelled or failed at once) leaves the
	// session unstarted, so the next line is again answered by both.
	if someoneAnswered {
		e.SetState(dialogue.StateStepCount, "0")
		e.SetState(dialogue.StateStepNext, next.Name)
	}
	if ctx.Err() != nil {
		return turn, ctx.Err()
	}
	return turn, errors.Join(errs...)
}

// step asks the next responder alone; the other agent's would-be cost is
// estimated for the saving report.
func (m *Alternate) step(ctx context.Context, instruction string) (dialogue.AlternateTurn, error) {
	e := m.engine
	n, _ := strconv.Atoi(e.State(dialogue.StateStepCount))
	n++
	if instruction != "" {
		e.AddEntry(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: instruction, Prompt: instruction})
	}
	responder := m.next()
	other := m.other(responder)
	turn := m.newTurn(n, instruction)
	// What the other agent would have been sent, had it answered this step too.
	wouldSend := transcript.EstimateTokens(debate.SystemPrompt(other, m.instruction(other)))
	for _, msg := range m.messagesFor(ctx, other) {
		wouldSend += transcript.EstimateTokens(msg.Content)
	}
	en, err := m.answer(ctx, responder, n, instruction)
	m.record(&turn, responder, en, err)
	next := responder
	if answered(en) {
		next = other // a responder that failed, or was cancelled before a word, keeps its turn
	}
	turn.Next = next.Name
	turn.BothTokens = turn.Tokens // a failed step saved nothing worth counting
	if answered(en) {
		turn.BothTokens += wouldSend + m.averageOutput(other, en.Usage.OutputTokens)
	}
	e.SetState(dialogue.StateStepCount, strconv.Itoa(n))
	e.SetState(dialogue.StateStepNext, next.Name)
	if ctx.Err() != nil {
		return turn, ctx.Err()
	}
	return turn, err
}

// messagesFor is what agent a receives now: the shared history from its
// side within the mode's budget, the host's latest instruction always
// included, ending with a user message (a step without instruction right
// after a's own answer would otherwise end on a's words).
func (m *Alternate) messagesFor(ctx context.Context, a *debate.Agent) []providers.Message {
	msgs := m.engine.PromptFor(ctx, debate.Prompt{Mode: "alternate", Self: a.Name, PinLatestUser: true})
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != providers.RoleUser {
		msgs = append(msgs, providers.Message{Role: providers.RoleUser, Content: "[" + debate.HostName + "]: (continue: your turn)"})
	}
	return msgs
}

func (m *Alternate) answer(ctx context.Context, a *debate.Agent, step int, instruction string) (transcript.Entry, error) {
	prompt := instruction
	if prompt == "" {
		prompt = "(next step, no new instruction)"
	}
	t := m.engine.Reserve(debate.TurnSpec{
		Agent: a, Kind: transcript.KindReply, Round: step, Prompt: prompt,
		Instruction: m.instruction(a), Messages: m.messagesFor(ctx, a),
	})
	return t.Run(ctx)
}

// answered reports whether a turn left words the other agent can answer:
// a complete answer, or the part of one that arrived before a cut or cancel.
func answered(en transcript.Entry) bool {
	return en.Status != transcript.StatusError && strings.TrimSpace(en.Text) != ""
}

func (m *Alternate) record(turn *dialogue.AlternateTurn, a *debate.Agent, en transcript.Entry, err error) {
	turn.Entries = append(turn.Entries, en)
	turn.Responder = a.Name
	turn.Tokens += en.Usage.Total()
	if en.Text != "" {
		text := en.Text
		turn.Outputs[a.Name] = &text
	}
	if err != nil && turn.Err == nil {
		turn.Err = err
	}
}

// averageOutputWindow is how many of an agent's latest answers its mean
// output is taken over: enough to be typical, bounded in a long session.
const averageOutputWindow = 20

// averageOutput is a's mean output tokens over its latest answers, or
// fallback when it has none yet.
func (m *Alternate) averageOutput(a *debate.Agent, fallback int) int {
	sum, n := 0, 0
	for en := range m.engine.History().Walk() {
		if en.Speaker == a.Name && en.IsAgentTurn() && en.Usage.OutputTokens > 0 {
			sum += en.Usage.OutputTokens
			n++
			if n == averageOutputWindow {
				break
			}
		}
	}
	if n == 0 {
		return fallback
	}
	return sum / n
}
