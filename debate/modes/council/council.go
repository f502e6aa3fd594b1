// Package council is council mode: the members answer, rank each other's
// answers anonymously, and a chairman writes the final answer.
package council

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/spend"
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

// Seat seats the members in council order, then the chairman (the last name).
func (Spec) Seat(c *config.Config, names []string) {
	c.Modes.Council.Members, c.Modes.Council.Chairman = slices.Clone(names[:len(names)-1]), names[len(names)-1]
}

// ChairSeat is the speaker name of the chairman's turns: the chairman sits
// in a seat of its own, even when its model also answers as a member.
const ChairSeat = "chairman"

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

// seatedMembers resolves the council's members and keeps those with a
// seat; unless they are a majority, the council makes no call at all.
func seatedMembers(e debate.Session, names []string) ([]*debate.Agent, error) {
	all, err := e.Resolve(names)
	if err != nil {
		return nil, err
	}
	unseated := e.SeatsOf(all)
	if len(unseated) == 0 {
		return all, nil
	}
	seated := slices.DeleteFunc(slices.Clone(all), func(a *debate.Agent) bool { return !e.Configuration().Seats.Seated(a.Name) })
	if 2*len(seated) <= len(all) {
		return nil, &debate.NoMajorityError{Seated: len(seated), Members: len(all), Unseated: unseated}
	}
	return seated, nil
}

// DefaultCouncilMembers are the first configured agent on an openai, a
// gemini and an anthropic provider each (configuration order): one model
// per vendor. With fewer than two such agents (local models only), the
// first three agents sit.
func DefaultCouncilMembers(cfg *config.Config) []string {
	var out []string
	taken := map[string]bool{}
	for _, a := range cfg.Agents {
		typ := cfg.Providers[a.Provider].Type
		if (typ == "openai" || typ == "gemini" || typ == "anthropic") && !taken[typ] {
			taken[typ] = true
			out = append(out, a.Name)
		}
	}
	if len(out) < 2 {
		out = cfg.AgentNames()[:min(3, len(cfg.Agents))]
	}
	return out
}

// DefaultChairman is the strongest configured model, judged by its output
// price (pricing, else the model catalogue: vendors price their strongest
// models highest); ties, and models without a price, go to the first agent
// in configuration order.
func DefaultChairman(cfg *config.Config) string {
	best, bestPrice := "", -1.0
	for _, a := range cfg.Agents {
		if !cfg.Seats.Seated(a.Name) {
			continue
		}
		price := 0.0
		if p, ok := cfg.Pricing[a.Model]; ok {
			price = p.Output
		} else if out := cfg.ModelInfo(a.Model).Output; out != nil {
			price = *out
		}
		if price > bestPrice {
			best, bestPrice = a.Name, price
		}
	}
	return best
}

// chairSeat is the chairman: the chosen agent's provider and model in a
// seat of its own, with the chair's persona.
func chairSeat(e debate.Session, of *debate.Agent) *debate.Agent {
	if of.Name == ChairSeat {
		return of
	}
	spec := of.AgentSpec
	spec.Name, spec.Display, spec.Tools = ChairSeat, "Chairman", nil
	spec.Persona = chairPersona
	if _, taken := e.Agent(ChairSeat); taken {
		spec.Name = "council-" + ChairSeat
	}
	return &debate.Agent{AgentSpec: spec, Provider: of.Provider}
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
	user := e.AddEntry(debate.Entry{Kind: debate.KindUser, Speaker: debate.SpeakerUser, Text: q})
	res := &verdict.CouncilResult{Question: q, Seed: councilSeed(e.Info().ID, q, user.Turn),
		Rankings: []verdict.CouncilRanking{}, Aggregate: []verdict.CouncilScore{}}
	res.Chairman = verdict.CouncilChair{Member: c.chairOf.Name, Seat: c.chair.Name, Display: c.chair.Label(),
		Provider: c.chair.Provider.Name(), Model: c.chair.Model, Status: verdict.CouncilFailed}

	c.host = &hostTurn{}
	res.Answers = c.answer(ctx, q)
	e.Emit(debate.CouncilAnswersCollected{Question: q, Seed: res.Seed, Answers: res.Answers})
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
		e.Emit(debate.CouncilRanked{Rankings: res.Rankings, Aggregate: res.Aggregate})
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

	before := slices.DeleteFunc(e.History().Settled(), func(en debate.Entry) bool { return en.Turn >= turn })
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
		e.AddEntry(debate.Entry{Kind: debate.KindError, Speaker: debate.SpeakerSystem, Display: "Council", Round: 3, Prompt: res.Question, Text: text, Error: res.Chairman.Error})
	}
	res.Evidence = c.evidencePolicy()
	res.Sentence = verdict.CouncilSentence(*res)
	e.Emit(debate.CouncilDecided{CouncilResult: *res})
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

// councilSeed fixes the label shuffles of one council; it is recorded in
// the events, so the shuffles can be reproduced.
func councilSeed(session, q string, turn int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", session, q, turn)
	return h.Sum64()
}

// answer is stage 1: every member answers at once, turns reserved in
// council order so the panels stream side by side and the history lists
// them in that order.
func (c *Council) answer(ctx context.Context, q string) []verdict.CouncilAnswer {
	e := c.engine
	seen := e.History().Settled()
	turns := make([]*debate.Turn, len(c.members))
	for i, a := range c.members {
		turns[i] = e.Reserve(debate.TurnSpec{Agent: a, Kind: debate.KindReply, Round: 1, Prompt: q, Instruction: councilAnswerText,
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

// rank is stage 2: every member ranks the others' valid answers at once.
func (c *Council) rank(ctx context.Context, q string, answers []verdict.CouncilAnswer, seed uint64) []verdict.CouncilRanking {
	var mask []string
	for _, a := range append(slices.Clone(c.members), c.chair) {
		mask = append(mask, a.Name, a.Display, a.Model, a.Provider.Name(), c.engine.Configuration().Providers[a.Provider.Name()].Type)
	}
	words := maskNames(hostWords(c.host, 2), slices.Clone(mask))
	type job struct {
		dropped string // why the member ranks no more
		labels  []string
		byLabel map[string]string
		msgs    []providers.Message
		turn    *debate.Turn
		parsed  *parsedRanking
	}
	jobs := make([]job, len(c.members))
	for i, a := range c.members {
		if ans := answers[i]; ans.Member == a.Name && ans.Status == verdict.AnswerDropped {
			jobs[i].dropped = ans.Error
			continue
		}
		var others []string
		texts := map[string]string{}
		for _, ans := range answers {
			if ans.Valid() && ans.Member != a.Name { // never its own answer
				others = append(others, ans.Member)
				texts[ans.Member] = ans.Text
			}
		}
		j := &jobs[i]
		j.labels, j.byLabel = shuffledLabels(others, seed, i)
		if len(others) == 0 {
			continue
		}
		j.msgs = []providers.Message{{Role: providers.RoleUser, Content: rankingPrompt(q, j.labels, j.byLabel, texts, mask, words)}}
		j.parsed = &parsedRanking{}
		j.turn = c.engine.Reserve(c.rankSpec(a, q, j.labels, j.byLabel, j.msgs, false, j.parsed))
	}
	out := make([]verdict.CouncilRanking, len(c.members))
	debate.InParallel(len(c.members), func(i int) {
		j := jobs[i]
		a := c.members[i]
		r := verdict.CouncilRanking{Ranker: a.Name, Display: a.Label(), Labels: j.byLabel, Order: []string{}}
		switch {
		case j.dropped != "":
			r.Error = j.dropped
		case j.turn == nil:
			r.Error = "no other member's answer to rank"
		default:
			r = c.castRanking(ctx, a, q, j.labels, j.byLabel, j.msgs, j.turn, j.parsed)
		}
		out[i] = r
		c.engine.Emit(debate.CouncilRankingCast{CouncilRanking: r})
	})
	return out
}

// parsedRanking is what a ranking turn's Settle read from its answer.
type parsedRanking struct {
	order []string // labels, best first
	eval  string
	err   error
}

func (c *Council) rankSpec(a *debate.Agent, q string, labels []string, byLabel map[string]string, msgs []providers.Message, retry bool, into *parsedRanking) debate.TurnSpec {
	prompt := "Council ranking (" + labelLegend(labels, byLabel) + "): " + q
	if retry {
		prompt = "Council ranking, asked again after an unreadable answer (" + labelLegend(labels, byLabel) + "): " + q
	}
	return debate.TurnSpec{Agent: a, Kind: debate.KindReply, Round: 2, Prompt: prompt, System: rankingSystem, Messages: msgs, Schema: RankingSchema(labels),
		Settle: func(en debate.Entry) debate.Entry {
			if en.Status != debate.StatusComplete {
				into.err = errors.New(en.Error)
				return en
			}
			into.order, into.eval, into.err = ParseRanking(en.Text, labels)
			switch {
			case into.err == nil:
				en.Text = rankingRecord(into.order, byLabel, c, into.eval) // the record names the authors
			case retry:
				en.Error = "unreadable ranking after a retry: " + into.err.Error()
			default:
				en.Error = "unreadable ranking: " + into.err.Error()
			}
			return en
		}}
}

// castRanking runs a ranker's reserved turn and, when the answer cannot be
// read, asks once more quoting the parse error; after that the ranking is
// invalid (and says why), never dropped.
func (c *Council) castRanking(ctx context.Context, a *debate.Agent, q string, labels []string, byLabel map[string]string, msgs []providers.Message, t *debate.Turn, p *parsedRanking) verdict.CouncilRanking {
	r := verdict.CouncilRanking{Ranker: a.Name, Display: a.Label(), Labels: byLabel, Order: []string{}}
	en, err := t.Run(ctx)
	r.Attempts, r.Turn, r.Usage, r.Cost = 1, en.Turn, en.Usage, en.Cost
	if err == nil && p.err != nil && ctx.Err() == nil {
		retry := slices.Clone(msgs)
		if raw := strings.TrimSpace(en.Text); raw != "" {
			retry = append(retry, providers.Message{Role: providers.RoleAssistant, Content: sanitize.Clip(raw, 4000)})
		}
		retry = append(retry, providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf(rankingRetryText, p.err, strings.Join(labels, `", "`))})
		p = &parsedRanking{}
		t = c.engine.Reserve(c.rankSpec(a, q, labels, byLabel, retry, true, p))
		en, err = t.Run(ctx)
		r.Attempts, r.Turn = 2, en.Turn
		r.Usage, r.Cost = r.Usage.Add(en.Usage), r.Cost+en.Cost
	}
	switch {
	case err != nil:
		r.Error = err.Error()
		if ctx.Err() != nil {
			r.Error = spend.StopReason(ctx)
		}
	case p.err != nil:
		r.Error = "unreadable ranking: " + p.err.Error()
		if r.Attempts > 1 {
			r.Error = "unreadable ranking after a retry: " + p.err.Error()
		}
	default:
		r.Valid, r.Evaluation = true, p.eval
		for _, l := range p.order {
			r.Order = append(r.Order, byLabel[l])
		}
	}
	return r
}

// decide is stage 3: the chairman's turn, streamed in its panel.
func (c *Council) decide(ctx context.Context, q string, before []debate.Entry, res *verdict.CouncilResult) (debate.Entry, error) {
	e := c.engine
	msgs := debate.BuildMessages(before, debate.View{Self: c.chair.Name, BudgetTokens: e.Configuration().Context.BudgetTokens / 2})
	msgs = debate.MergeRoles(append(msgs, providers.Message{Role: providers.RoleUser, Content: c.chairPrompt(q, res)}))
	t := e.Reserve(debate.TurnSpec{Agent: c.chair, Kind: debate.KindReply, Round: 3, Prompt: "Council chairman: " + q, Instruction: chairInstruction, Messages: msgs, Answer: true})
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

// Seated are the members (configured or by default) and the chairman.
func (Spec) Seated(c *config.Config) []string {
	members, chair := c.Modes.Council.Members, c.Modes.Council.Chairman
	if len(members) == 0 {
		members = DefaultCouncilMembers(c)
	}
	if chair == "" {
		chair = DefaultChairman(c)
	}
	return append(slices.Clone(members), chair)
}
