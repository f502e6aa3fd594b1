// Package magi is MAGI mode: three personas vote on the host's question
// over up to three rounds.
package magi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"

	"github.com/parleyhq/parley/providers"
)

// Magi is the three-member council: round 1 independent, round 2
// deliberation on the others' round-1 opinions, round 3 a final vote on
// everyone's round-2 opinions, then a majority verdict.
//
// A council is self-contained: members see the question and the council's
// own opinions, not the rest of the session, so each member's prompt keeps a
// stable prefix (system prompt, then the question) that provider prompt
// caching can reuse across its rounds.
type Magi struct {
	engine debate.Session
	agents []*debate.Agent

	mu     sync.Mutex
	rounds int // rounds of the next council: 1 to verdict.MagiRounds (the command's -1: 1)
	// answer is what the council votes over; early, anonymous and shuffle
	// are modes.magi's early_stop and conformity controls.
	answer                    verdict.AnswerType
	early, anonymous, shuffle bool
	// adaptive stops when more rounds are unlikely to change the verdict
	// (margin: round 1's threshold); guard discounts conformity changes.
	adaptive, guard bool
	margin          float64
	// notes are what members with tools: true found in the workspace before
	// round 1, by member index ("" for the others); set once per council.
	notes []string
	// context is the session's history before the question (a resumed or
	// forked debate), digested once per council; "" in a fresh session.
	context string
	// host is what the host decided at this council's checkpoints (magihost.go).
	host *hostTurn
}

// Spec describes MAGI mode; debate/modes.All lists it.
type Spec struct{}

func (Spec) Info() config.ModeInfo {
	return config.ModeInfo{Name: debate.ModeMagi, Key: "alt+4", Title: "three members vote over three rounds; a majority decides",
		Input: "a yes-or-no question or proposal for the MAGI to vote on", Roles: []string{"member", "member", "member"},
		Controls: []config.ControlKind{config.ControlRounds},
		Seats:    config.SeatRange{Min: 3, Max: 3}, ContextTokens: 6000,
		Hint:        "ask a question: three rounds of votes",
		Placeholder: "a question for the MAGI council · /help",
		Examples: []config.Example{
			{Line: "Should we ship on Friday?", Does: "three members vote over three rounds"},
			{Line: "Rewrite the billing service in Rust?", Does: "a majority decides"},
			{Line: "Adopt a four-day week?", Does: "enter on a vote opens its reasoning"},
		},
		Layout: config.Layout{Board: config.BoardVotes}}
}

func (Spec) New(e debate.Session) (debate.Mode, error) { return newMagi(e) }

func (Spec) Check(k *config.ConfigCheck) error {
	m := k.Config.Modes.Magi
	if err := k.Agents("modes.magi.agents", m.Agents, 3); err != nil {
		return err
	}
	if _, err := verdict.ParseAnswerType(m.AnswerType); err != nil {
		return k.Bad("modes.magi.answer_type", "%v", err)
	}
	if m.AdaptiveMargin < 0 || m.AdaptiveMargin > 1 {
		return k.Bad("modes.magi.adaptive_margin", "must be between 0 and 1 (0: the default, %.1f)", verdict.DefaultAdaptiveMargin)
	}
	if err := verdict.CheckEvidencePolicy("modes.magi.evidence", m.Evidence); err != nil {
		return k.Bad("modes.magi.evidence", "%v", err)
	}
	if _, err := checkpoint.ParsePolicy(m.Checkpoint); err != nil {
		return k.Bad("modes.magi.checkpoint", "%v", err)
	}
	return nil
}

func (Spec) Budget(c *config.Config) float64               { return c.Modes.Magi.BudgetUSD }
func (Spec) Context(c *config.Config) config.ContextBudget { return c.Context.Magi }

// WorstCase bounds one council of three rounds: every member's vote and
// its retry, each round reading what the rounds before it showed.
func (Spec) WorstCase(b *debate.Bound, m debate.Mode) string {
	members := m.Agents()
	outs := 0
	for _, a := range members {
		outs += b.MaxOut(a)
	}
	for _, a := range members {
		own := b.MaxOut(a)
		b.Retried(a, 0)        // round 1: alone
		b.Retried(a, outs-own) // round 2: the others' round-1 opinions
		b.Retried(a, own+outs) // round 3: its own round 1 and everyone's round 2
	}
	return "MAGI council"
}

// Seated are the three members.
func (Spec) Seated(c *config.Config) []string { return c.Modes.Magi.Agents }

func (Spec) Seat(c *config.Config, names []string) { c.Modes.Magi.Agents = slices.Clone(names) }

func newMagi(e debate.Session) (debate.Mode, error) {
	agents, err := e.MustAgents(e.Configuration().Modes.Magi.Agents...)
	if err != nil {
		return nil, err
	}
	if len(agents) == 0 {
		return nil, &config.ConfigError{File: e.Configuration().Source, Key: "modes.magi.agents", Problem: "needs three agents"}
	}
	mc := e.Configuration().Modes.Magi
	answer, err := verdict.ParseAnswerType(mc.AnswerType)
	if err != nil {
		return nil, &config.ConfigError{File: e.Configuration().Source, Key: "modes.magi.answer_type", Problem: err.Error()}
	}
	margin := mc.AdaptiveMargin
	if margin == 0 {
		margin = verdict.DefaultAdaptiveMargin
	}
	return &Magi{engine: e, agents: agents, rounds: verdict.MagiRounds, answer: answer,
		early: mc.EarlyStop, anonymous: mc.Anonymous, shuffle: mc.Shuffle,
		adaptive: mc.Adaptive, guard: mc.Guard, margin: margin}, nil
}

// Control implements Controller: rounds 1 runs round 1 only (independent
// votes), 2 stops after deliberation; anything more runs the full council.
func (m *Magi) Control(c debate.Control) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rounds = min(max(c.N, 1), verdict.MagiRounds)
	return nil
}

// Name implements Mode.
func (m *Magi) Name() string { return debate.ModeMagi }

// Agents implements Mode: the members, in council order.
func (m *Magi) Agents() []*debate.Agent {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*debate.Agent(nil), m.agents...)
}

// Submit implements Mode: one council on the question. It returns an error
// when the council was cancelled or when every member failed in a round
// (nothing left to deliberate); a member that fails alone casts an INVALID
// vote with its error and the others go on.
func (m *Magi) Submit(ctx context.Context, input string) error {
	q := strings.TrimSpace(input)
	if q == "" {
		return errors.New("magi: put a question to the council")
	}
	e := m.engine
	m.context = m.debateSoFar(ctx)
	e.SetTitle(q, "")
	e.AddEntry(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: q})
	m.mu.Lock()
	rounds := m.rounds
	m.mu.Unlock()
	res := &verdict.MagiResult{Question: q, Evidence: m.evidencePolicy()}
	if m.answer != verdict.AnswerApprove {
		res.AnswerType = m.answer
	}
	m.notes = m.research(ctx, q)
	m.host = &hostTurn{dropped: map[int]int{}, swapped: map[int]int{}}
	return m.deliberate(ctx, q, rounds, res, false)
}

// deliberate runs the council's rounds after those in res, offering the
// host a checkpoint after each but the last (resumed: at once, after the
// last round in res), then decides.
func (m *Magi) deliberate(ctx context.Context, q string, rounds int, res *verdict.MagiResult, resumed bool) error {
	e := m.engine
	var err error
	r := len(res.Rounds)
	for {
		if !resumed {
			r++
			votes := m.runRound(ctx, q, r, res.Rounds)
			res.Rounds = append(res.Rounds, votes)
			e.Emit(verdict.MagiRoundFinished{Round: r, Of: rounds, Votes: votes, Changed: changedVotes(res.Rounds)})
			if ctx.Err() != nil {
				res.Cancelled, err = true, ctx.Err()
				break
			}
			if err = allFailed(votes); err != nil {
				break
			}
			if r == 1 && rounds > 1 && m.early && verdict.Unanimous(votes) {
				res.EarlyStopped, res.StopReason = true, verdict.StopUnanimous // a unanimous round 1 decides: 3 calls instead of 9
				break
			}
			if m.adaptive && r < rounds {
				if res.StopReason = verdict.AdaptiveStop(res.Rounds, verdict.AuditFlips(res.Rounds), m.margin); res.StopReason != "" {
					res.EarlyStopped = res.StopReason == verdict.StopUnanimous
					break
				}
			}
		}
		resumed = false
		if r >= rounds {
			break
		}
		if err = m.checkpoint(ctx, m.host, q, rounds, res); err != nil {
			res.Cancelled = true // the host could not be asked: the council decided nothing (it still waits there)
			break
		}
		if m.host.stopped {
			res.StopReason = verdict.StopHost
			break
		}
	}
	if derr := m.decide(res, q, rounds); err == nil {
		err = derr
	}
	return err
}

// decide concludes the council and announces its outcome.
func (m *Magi) decide(res *verdict.MagiResult, q string, rounds int) error {
	e := m.engine
	if res.StopReason != "" {
		res.CallsSaved = (rounds - len(res.Rounds)) * len(m.agents)
	}
	m.conclude(res)
	if res.Cancelled {
		res.Verdict, res.Tally = "", nil // a cancelled council decided nothing
	}
	if !res.Cancelled {
		last := len(res.Rounds)
		res.Sentence = verdict.VerdictSentence(res)
		e.AddEntry(transcript.Entry{Kind: transcript.KindVerdict, Speaker: transcript.SpeakerSystem, Display: "MAGI", Round: last, Prompt: q,
			Vote: string(res.Verdict), Text: res.Sentence})
		e.Emit(verdict.VerdictReached{Round: last, Verdict: string(res.Verdict), Tally: res.Tally, Note: verdict.DecisionNote(res), Sentence: res.Sentence})
	}
	e.Emit(verdict.MagiDecided{MagiResult: *res, RoundsRun: len(res.Rounds)})
	return nil
}

// changedVotes names the members whose valid vote in the latest round
// differs from their valid vote in the round before.
func changedVotes(rounds [][]verdict.MagiVote) []string {
	changed := []string{}
	if len(rounds) < 2 {
		return changed
	}
	before, now := rounds[len(rounds)-2], rounds[len(rounds)-1]
	for i, v := range now {
		if i < len(before) && v.Valid && before[i].Valid && v.Vote != before[i].Vote && v.Agent == before[i].Agent { // a swapped seat changed its agent, not its mind
			changed = append(changed, v.Agent)
		}
	}
	return changed
}

// allFailed reports the providers' errors when no member got through.
func allFailed(votes []verdict.MagiVote) error {
	var errs []error
	for _, v := range votes {
		if !v.Failed {
			return nil
		}
		errs = append(errs, fmt.Errorf("%s: %s", v.Display, v.Error))
	}
	return fmt.Errorf("every MAGI member failed in round %d: %w", votes[0].Round, errors.Join(errs...))
}

// conclude fills the verdict, flips and usage from the rounds.
func (m *Magi) conclude(res *verdict.MagiResult) {
	final := res.Rounds[len(res.Rounds)-1]
	words := make([]verdict.Vote, len(final))
	for i, v := range final {
		words[i] = v.Vote
	}
	res.Flips = verdict.AuditFlips(res.Rounds)
	res.Rule = verdict.RuleMajority
	if m.guard {
		words, res.Discounted = verdict.GuardedVotes(res.Rounds, res.Flips)
		res.Rule = verdict.RuleGuardedMajority
	}
	if m.answer != verdict.AnswerApprove {
		res.Margin = verdict.WeightedMargin(res.Rounds[0])
	}
	if m.answer == verdict.AnswerApprove {
		res.Verdict, res.Tally = verdict.Decide(words), verdict.Tally(words)
	} else {
		res.Verdict, res.Answer = verdict.DecideAnswers(words)
		res.Tally = verdict.TallyAnswers(words)
	}
	if res.Flips == nil {
		res.Flips = []verdict.Flip{} // "flips": [] in JSON, not null
	}
	for _, u := range usageByAgent(res.Rounds) {
		res.Agents = append(res.Agents, u)
		res.Usage = res.Usage.Add(u.Usage)
		res.Cost += u.Cost
	}
}

// usageByAgent is each agent's calls, tokens and cost over the rounds, in
// seat order then in the order swaps seated them (a seat's votes are its
// agents', each its own).
func usageByAgent(rounds [][]verdict.MagiVote) []verdict.MagiUsage {
	var out []verdict.MagiUsage
	at := map[string]int{}
	for _, round := range rounds {
		for _, v := range round {
			i, ok := at[v.Agent]
			if !ok {
				i, at[v.Agent] = len(out), len(out)
				out = append(out, verdict.MagiUsage{Agent: v.Agent, Display: v.Display, Provider: v.Provider, Model: v.Model})
			}
			out[i].Calls += v.Attempts
			out[i].Usage = out[i].Usage.Add(v.Usage)
			out[i].Cost += v.Cost
		}
	}
	return out
}

// runRound asks every member at once; the round takes as long as its
// slowest member. Turns are reserved in member order first, so the history
// lists them in that order whatever order they finish in.
func (m *Magi) runRound(ctx context.Context, q string, round int, prev [][]verdict.MagiVote) []verdict.MagiVote {
	e := m.engine
	msgs := make([][]providers.Message, len(m.agents))
	turns := make([]*debate.Turn, len(m.agents))
	parsed := make([]*parsedVote, len(m.agents))
	for i, a := range m.agents {
		if _, gone := m.host.dropped[i]; gone {
			continue
		}
		msgs[i] = m.roundMessages(i, round, q, prev)
		parsed[i] = &parsedVote{}
		turns[i] = e.Reserve(m.voteSpec(a, round, q, msgs[i], false, parsed[i]))
	}
	out := make([]verdict.MagiVote, len(m.agents))
	debate.InParallel(len(m.agents), func(i int) {
		if after, gone := m.host.dropped[i]; gone {
			out[i] = m.droppedVote(i, round, after)
			return
		}
		out[i] = m.castVote(ctx, i, round, q, msgs[i], turns[i], parsed[i])
	})
	return out
}

// parsedVote is what a turn's Settle read from its answer.
type parsedVote struct {
	ballot verdict.Ballot
	err    error
}

func (m *Magi) voteSpec(a *debate.Agent, round int, q string, msgs []providers.Message, retry bool, into *parsedVote) debate.TurnSpec {
	prompt := fmt.Sprintf("MAGI round %d: %s", round, q)
	if retry {
		prompt = fmt.Sprintf("MAGI round %d, asked again after an unreadable answer: %s", round, q)
	}
	return debate.TurnSpec{
		Agent: a, Kind: transcript.KindVote, Round: round, Prompt: prompt, Rounds: m.rounds,
		Instruction: m.rules(), Messages: msgs, Schema: m.schemaFor(a),
		Settle: func(en transcript.Entry) transcript.Entry {
			en.Vote = string(verdict.VoteInvalid)
			if en.Status != transcript.StatusComplete {
				into.err = errors.New(en.Error)
				return en
			}
			into.ballot, into.err = verdict.ParseAnswer(m.answer, en.Text)
			switch {
			case into.err == nil:
				en.Vote = string(into.ballot.Vote)
				en.Text = into.ballot.JSON() // the stored row holds the canonical vote
			case retry:
				en.Error = "unreadable vote after a retry: " + into.err.Error()
			default:
				en.Error = "unreadable vote: " + into.err.Error()
			}
			return en
		},
	}
}

// castVote runs a member's reserved turn and, when the answer cannot be
// read, asks once more quoting the parse error.
func (m *Magi) castVote(ctx context.Context, i, round int, q string, msgs []providers.Message, t *debate.Turn, p *parsedVote) verdict.MagiVote {
	a := m.agents[i]
	v := verdict.MagiVote{Agent: a.Name, Display: a.Label(), Provider: a.Provider.Name(), Model: a.Model, Round: round}
	en, err := t.Run(ctx)
	v.Attempts, v.Turn, v.Usage, v.Cost = 1, en.Turn, en.Usage, en.Cost
	if err == nil && p.err != nil && ctx.Err() == nil {
		retryMsgs := append([]providers.Message(nil), msgs...)
		if raw := strings.TrimSpace(en.Text); raw != "" {
			retryMsgs = append(retryMsgs, providers.Message{Role: providers.RoleAssistant, Content: sanitize.Clip(raw, 4000)})
		}
		retryMsgs = append(retryMsgs, providers.Message{Role: providers.RoleUser, Content: m.retryPrompt(p.err)})
		p = &parsedVote{}
		t = m.engine.Reserve(m.voteSpec(a, round, q, retryMsgs, true, p))
		en, err = t.Run(ctx)
		v.Attempts, v.Turn = 2, en.Turn
		v.Usage, v.Cost = v.Usage.Add(en.Usage), v.Cost+en.Cost
	}
	switch {
	case err != nil:
		v.Ballot, v.Failed, v.Error = verdict.Ballot{Vote: verdict.VoteInvalid}, true, err.Error()
		if ctx.Err() != nil {
			v.Error = spend.StopReason(ctx)
		}
	case p.err != nil:
		v.Ballot, v.Error = verdict.Ballot{Vote: verdict.VoteInvalid}, "unreadable vote: "+p.err.Error()
		if v.Attempts > 1 {
			v.Error = "unreadable vote after a retry: " + p.err.Error()
		}
	default:
		v.Ballot, v.Valid = p.ballot, true
		m.cite(&v)
	}
	m.engine.Emit(verdict.VoteCast{Turn: v.Turn, Agent: a.Name, Round: round, Vote: string(v.Vote), Valid: v.Valid, Summary: v.Summary, Error: v.Error})
	return v
}
