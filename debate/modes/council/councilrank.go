package council

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// councilSeed fixes the label shuffles of one council; it is recorded in
// the events, so the shuffles can be reproduced.
func councilSeed(session, q string, turn int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", session, q, turn)
	return h.Sum64()
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
		c.engine.Emit(verdict.CouncilRankingCast{CouncilRanking: r})
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
	return debate.TurnSpec{Agent: a, Kind: transcript.KindReply, Round: 2, Prompt: prompt, System: rankingSystem, Messages: msgs, Schema: RankingSchema(labels),
		Settle: func(en transcript.Entry) transcript.Entry {
			if en.Status != transcript.StatusComplete {
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
