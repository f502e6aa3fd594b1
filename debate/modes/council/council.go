// Package council is council mode: the members answer, rank each other's
// answers anonymously, and a chairman writes the final answer.
package council

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"

	"github.com/parleyhq/parley/providers"
)

// Council is the answer–rank–synthesise mode. Stage 1: every member
// answers the question at once. Stage 2: every member ranks the others'
// answers, shown anonymously as "Response A, B, …" in its own shuffled
// order; a member is never shown its own answer, so it cannot rank it.
// The rankings are aggregated by Borda count and mean rank. Stage 3: the
// chairman reads the question, the answers with their real authors and the
// aggregate, and writes the final answer. A chairman that fails leaves a
// result labelled failed, with the top-ranked answer as its fallback.
type Council struct {
	engine  debate.Session
	members []*debate.Agent
	chair   *debate.Agent // the chairman's seat (its own panel and speaker name)
	// chairOf is the configured agent whose provider and model the chair uses.
	chairOf *debate.Agent
	// host is what the host decided at this council's checkpoints (councilhost.go).
	host *hostTurn
}

// Spec describes council mode; debate/modes.All lists it.
type Spec struct{}

func (Spec) Info() config.ModeInfo {
	return config.ModeInfo{Name: debate.ModeCouncil, Key: "alt+6", Title: "members answer, rank each other's answers anonymously; a chairman writes the final answer",
		Input: "a question for the council", Roles: []string{"member", "member", "member", "chairman"},
		Seats:  config.SeatRange{Min: 3, Max: 9},
		Layout: config.Layout{Board: config.BoardRanking, RankingRound: 2}}
}

func (Spec) New(e debate.Session) (debate.Mode, error) { return newCouncil(e) }

func (Spec) Check(k *config.ConfigCheck) error {
	c := k.Config.Modes.Council
	if err := k.Agents("modes.council.members", c.Members, 0); err != nil {
		return err
	}
	if len(c.Members) == 1 {
		return k.Bad("modes.council.members", "needs at least two members, has 1")
	}
	if c.Chairman != "" {
		if err := k.Agent("modes.council.chairman", c.Chairman); err != nil {
			return err
		}
	}
	if err := verdict.CheckEvidencePolicy("modes.council.evidence", c.Evidence); err != nil {
		return k.Bad("modes.council.evidence", "%v", err)
	}
	if config.HasDuplicate(c.Members) {
		return k.Bad("modes.council.members", "lists a member twice")
	}
	if _, err := checkpoint.ParsePolicy(c.Checkpoint); err != nil {
		return k.Bad("modes.council.checkpoint", "%v", err)
	}
	return nil
}

func (Spec) Budget(c *config.Config) float64             { return c.Modes.Council.BudgetUSD }
func (Spec) Context(*config.Config) config.ContextBudget { return config.ContextBudget{} }

func newCouncil(e debate.Session) (debate.Mode, error) {
	cfg := e.Configuration().Modes.Council
	names := cfg.Members
	if len(names) == 0 {
		names = DefaultCouncilMembers(e.Configuration())
	}
	members, err := seatedMembers(e, names)
	if err != nil {
		return nil, err
	}
	if len(members) < 2 {
		return nil, &config.ConfigError{File: e.Configuration().Source, Key: "modes.council.members", Problem: "needs at least two members"}
	}
	chairName := cfg.Chairman
	if chairName == "" {
		chairName = DefaultChairman(e.Configuration())
	}
	chairOf, err := e.MustAgents(chairName)
	if err != nil {
		return nil, err
	}
	return &Council{engine: e, members: members, chair: chairSeat(e, chairOf[0]), chairOf: chairOf[0]}, nil
}

// Name implements Mode.
func (c *Council) Name() string { return debate.ModeCouncil }

// SeatedAgents are the members and the chairman, who may sit apart.
func (c *Council) SeatedAgents() []*debate.Agent { return append(c.Agents(), c.chairOf) }

// Agents implements Mode: the members in council order, then the chairman.
func (c *Council) Agents() []*debate.Agent { return append(slices.Clone(c.members), c.chair) }

// Submit implements Mode: one council on the question. It returns an error
// unless the chairman's answer is complete.
func (c *Council) Submit(ctx context.Context, input string) error {
	q := strings.TrimSpace(input)
	if q == "" {
		return errors.New("council: put a question to the council")
	}
	e := c.engine
	e.SetTitle(q, "")
	user := e.AddEntry(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: q})
	res := &verdict.CouncilResult{Question: q, Seed: councilSeed(e.Info().ID, q, user.Turn),
		Rankings: []verdict.CouncilRanking{}, Aggregate: []verdict.CouncilScore{}}
	res.Chairman = verdict.CouncilChair{Member: c.chairOf.Name, Seat: c.chair.Name, Display: c.chair.Label(),
		Provider: c.chair.Provider.Name(), Model: c.chair.Model, Status: verdict.CouncilFailed}

	c.host = &hostTurn{}
	res.Answers = c.answer(ctx, q)
	e.Emit(verdict.CouncilAnswersCollected{Question: q, Seed: res.Seed, Answers: res.Answers})
	return c.goOn(ctx, q, user.Turn, res, nil)
}

// goOn takes a council on from its answers in res: the checkpoint after
// them, the rankings, the checkpoint after those, and the chairman. turn
// is the question's entry. A resumed council waits at the point at: the
// host is asked there again and no stage before it runs again.
func (c *Council) goOn(ctx context.Context, q string, turn int, res *verdict.CouncilResult, at *checkpoint.Point) error {
	e := c.engine
	if at == nil || at.Kind == checkpoint.KindAnswers {
		if at == nil {
			var valid int
			for _, a := range res.Answers {
				if a.Valid() {
					valid++
				}
			}
			switch {
			case ctx.Err() != nil:
				return c.finish(res, ctx.Err())
			case valid == 0:
				return c.finish(res, errors.New("no member answered"))
			}
		}
		if err := c.offer(ctx, checkpoint.KindAnswers, q, turn, res, at); err != nil {
			return err // the host could not be asked: the council decided nothing and waits there, saved
		}
		if c.host.stopped {
			return c.stop(res, checkpoint.KindAnswers)
		}
		at = nil
		res.Rankings = c.rank(ctx, q, res.Answers, res.Seed)
		res.Aggregate = verdict.Aggregate(res.Answers, res.Rankings)
		e.Emit(verdict.CouncilRanked{Rankings: res.Rankings, Aggregate: res.Aggregate})
		if ctx.Err() != nil {
			return c.finish(res, ctx.Err())
		}
	}
	if err := c.offer(ctx, checkpoint.KindRankings, q, turn, res, at); err != nil {
		return err // the host could not be asked: the council decided nothing and waits there, saved
	}
	if c.host.stopped {
		return c.stop(res, checkpoint.KindRankings)
	}

	before := slices.DeleteFunc(e.History().Settled(), func(en transcript.Entry) bool { return en.Turn >= turn })
	en, err := c.decide(ctx, q, before, res)
	ch := &res.Chairman
	ch.Text, ch.Turn, ch.Usage, ch.Cost = en.Text, en.Turn, en.Usage, en.Cost
	if err == nil && strings.TrimSpace(en.Text) == "" {
		err = errors.New("the chairman's answer is empty")
	}
	if err == nil {
		ch.Status = verdict.CouncilComplete
	}
	return c.finish(res, err)
}

// finish settles the result: a failed chairman names the top-ranked answer
// as the fallback, in the record and in the events.
func (c *Council) finish(res *verdict.CouncilResult, err error) error {
	e := c.engine
	if errors.Is(err, context.Canceled) {
		res.Cancelled = true
	}
	if err != nil {
		res.Chairman.Status, res.Chairman.Error = verdict.CouncilFailed, err.Error()
		if res.Cancelled {
			res.Chairman.Error = "cancelled"
			if spend.IsCap(err) {
				res.Chairman.Error = spend.CapStopped
			}
		}
		if len(res.Aggregate) == 0 {
			res.Aggregate = verdict.Aggregate(res.Answers, res.Rankings)
		}
		if len(res.Aggregate) > 0 {
			res.Chairman.Fallback = res.Aggregate[0].Member
		}
	}
	c.tally(res)
	if err != nil {
		text := "The council's chairman failed: " + res.Chairman.Error + "."
		if fb, ok := res.FallbackAnswer(); ok {
			text += fmt.Sprintf(" Fallback: the top-ranked answer, by %s.", fb.Display)
		} else {
			text += " No answer stands in for it."
		}
		e.AddEntry(transcript.Entry{Kind: transcript.KindError, Speaker: transcript.SpeakerSystem, Display: "Council", Round: 3, Prompt: res.Question, Text: text, Error: res.Chairman.Error})
	}
	res.Evidence = c.evidencePolicy()
	res.Sentence = verdict.CouncilSentence(*res)
	e.Emit(verdict.CouncilDecided{CouncilResult: *res})
	e.AddOutcome("Council", res.Sentence)
	if err != nil {
		msg := "council: " + res.Chairman.Error
		if res.Chairman.Fallback != "" {
			msg += " (fallback: the top-ranked answer, by " + res.Chairman.Fallback + ")"
		}
		if res.Cancelled {
			return fmt.Errorf("%s: %w", msg, context.Canceled)
		}
		return errors.New(msg)
	}
	return nil
}

// tally fills the usage per seat and stage and the totals.
func (c *Council) tally(res *verdict.CouncilResult) {
	add := func(u verdict.CouncilUsage) {
		if u.Calls == 0 {
			return
		}
		res.Seats = append(res.Seats, u)
		res.Usage = res.Usage.Add(u.Usage)
		res.Cost += u.Cost
	}
	for _, a := range res.Answers {
		add(verdict.CouncilUsage{Member: a.Member, Display: a.Display, Model: a.Model, Stage: 1, Calls: 1, Usage: a.Usage, Cost: a.Cost})
	}
	for _, r := range res.Rankings {
		m := c.member(r.Ranker)
		add(verdict.CouncilUsage{Member: r.Ranker, Display: r.Display, Model: m.Model, Stage: 2, Calls: r.Attempts, Usage: r.Usage, Cost: r.Cost})
	}
	if ch := res.Chairman; ch.Turn > 0 {
		add(verdict.CouncilUsage{Member: ch.Seat, Display: ch.Display, Model: ch.Model, Stage: 3, Calls: 1, Usage: ch.Usage, Cost: ch.Cost})
	}
}

func (c *Council) member(name string) *debate.Agent {
	for _, a := range c.members {
		if a.Name == name {
			return a
		}
	}
	return c.chair
}

// answer is stage 1: every member answers at once, turns reserved in
// council order so the panels stream side by side and the history lists
// them in that order.
func (c *Council) answer(ctx context.Context, q string) []verdict.CouncilAnswer {
	e := c.engine
	seen := e.History().Settled()
	turns := make([]*debate.Turn, len(c.members))
	for i, a := range c.members {
		turns[i] = e.Reserve(debate.TurnSpec{Agent: a, Kind: transcript.KindReply, Round: 1, Prompt: q, Instruction: councilAnswerText,
			Messages: debate.BuildMessages(seen, debate.View{Self: a.Name, BudgetTokens: e.Configuration().Context.BudgetTokens})})
	}
	out := make([]verdict.CouncilAnswer, len(c.members))
	for i, r := range debate.RunAll(ctx, turns) {
		a, en := c.members[i], r.Entry
		out[i] = verdict.CouncilAnswer{Member: a.Name, Display: a.Label(), Provider: a.Provider.Name(), Model: a.Model,
			Text: en.Text, Status: string(en.Status), Error: en.Error, Turn: en.Turn, Usage: en.Usage, Cost: en.Cost}
	}
	c.cite(out)
	return out
}

// decide is stage 3: the chairman's turn, streamed in its panel.
func (c *Council) decide(ctx context.Context, q string, before []transcript.Entry, res *verdict.CouncilResult) (transcript.Entry, error) {
	e := c.engine
	msgs := debate.BuildMessages(before, debate.View{Self: c.chair.Name, BudgetTokens: e.Configuration().Context.BudgetTokens / 2})
	msgs = debate.MergeRoles(append(msgs, providers.Message{Role: providers.RoleUser, Content: c.chairPrompt(q, res)}))
	t := e.Reserve(debate.TurnSpec{Agent: c.chair, Kind: transcript.KindReply, Round: 3, Prompt: "Council chairman: " + q, Instruction: chairInstruction, Messages: msgs, Answer: true})
	return t.Run(ctx)
}

// WorstCase bounds one council: every member's answer, its ranking of
// every answer (and the ranking's retry), and the chairman reading it all.
func (Spec) WorstCase(b *debate.Bound, m debate.Mode) string {
	seats := m.Agents()
	if len(seats) < 2 {
		return debate.ModeCouncil
	}
	members, chair := seats[:len(seats)-1], seats[len(seats)-1]
	answers := 0
	for _, a := range members {
		answers += b.MaxOut(a)
	}
	rankings := 0
	for _, a := range members {
		b.Call(a, 0)          // stage 1: its answer
		b.Retried(a, answers) // stage 2: ranks every answer
		rankings += b.MaxOut(a)
	}
	b.Call(chair, answers+rankings) // stage 3: the chairman reads it all
	return debate.ModeCouncil
}
