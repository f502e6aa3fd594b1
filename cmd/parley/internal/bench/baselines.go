package bench

import (
	"context"
	"fmt"
	"math"

	"github.com/parleyhq/parley/cmd/parley/internal/toolkit"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// The baselines the literature compares debate against, beside the rules
// scored on the council's own calls (docs/bench.md, "Baselines").
const (
	// RuleSelfConsistency is one model sampled at the debate's token
	// budget, the plurality of its answers (Wang et al. 2022; Zhang et
	// al., arXiv 2502.08788).
	RuleSelfConsistency = "self_consistency"
	// RuleSPRT is the verdict where Wald's sequential test on agreement
	// stops (arXiv 2605.19193), replayed on the council's calls.
	RuleSPRT = "sprt"
	// RuleOracle is right when any member was right in round 1: the bound
	// no vote over round 1 can pass (arXiv 2605.00914).
	RuleOracle = "oracle"
	// SamePrefix names the homogeneous council's conditions (--same-model;
	// X-MAS, arXiv 2505.16997).
	SamePrefix = "same:"
	// ToolsPrefix names the with-tools council's conditions (--tools): the
	// same council, the same question, its members with their tools.
	ToolsPrefix = "tools:"
)

// maxSamples bounds the self-consistency samples of one question, however
// large the debate's token budget.
const maxSamples = 30

// Homogeneous is the question put to the same council with every seat on
// one model.
type Homogeneous struct {
	Model  string         `json:"model"`
	Rounds [][]Vote       `json:"rounds"`
	Flips  []verdict.Flip `json:"flips"`
}

// Sampled is the self-consistency baseline: one agent's independent
// answers, drawn until their tokens reach the debate's.
type Sampled struct {
	Agent  string `json:"agent"`
	Model  string `json:"model"`
	Budget int    `json:"budget_tokens"` // the debate's tokens on the question
	Votes  []Vote `json:"votes"`
}

// sampler is a provider that can stand for an independent draw of its
// model (the simulation; real providers sample by temperature).
type sampler interface {
	Sample(i int, display string) providers.Provider
}

// copyAs is agent a seated as name (shown as display), on a provider that
// stands for independent draw i of a's model.
func copyAs(a *debate.Agent, name, display string, i int) *debate.Agent {
	b := *a
	b.Name, b.Display = name, display
	if sp, ok := a.Provider.(sampler); ok {
		b.Provider = sp.Sample(i, display)
	}
	return &b
}

// runBaselines asks the question of the baselines s names, recording them
// on r; ok is false when the run was cut short (the question is not scored).
func runBaselines(ctx context.Context, s Setup, g *gate, meter *spend.Meter, q Question, r *Result, overBudget func()) (bool, error) {
	seats := s.Config.Modes.Magi.Agents
	if m := s.SameModel; m != nil {
		agents := make([]*debate.Agent, len(seats))
		for i, name := range seats {
			agents[i] = copyAs(m, name, labelOf(s.Agents, name), 1+i)
		}
		c, err := ask(ctx, s, g, meter, q, agents, seats, s.Rounds)
		if err != nil {
			return false, err
		}
		if ok, err := c.scored(ctx, q, overBudget); !ok || err != nil {
			return false, err
		}
		r.SameModel = &Homogeneous{Model: m.Model, Rounds: c.rounds, Flips: c.decided.Flips}
	}
	if s.Tools != nil {
		c, err := askWith(ctx, s, g, meter, q, s.Agents, seats, s.Rounds, s.Tools)
		if err != nil {
			return false, err
		}
		if ok, err := c.scored(ctx, q, overBudget); !ok || err != nil {
			return false, err
		}
		r.WithTools = &Homogeneous{Rounds: c.rounds, Flips: c.decided.Flips}
	}
	if m := s.SelfConsistency; m != nil {
		sc := &Sampled{Agent: m.Name, Model: m.Model, Budget: tokensOf(r.Rounds), Votes: []Vote{}}
		for tokensOf([][]Vote{sc.Votes}) < sc.Budget && len(sc.Votes) < maxSamples || len(sc.Votes) == 0 {
			agents := make([]*debate.Agent, len(seats))
			for i, name := range seats {
				n := len(sc.Votes) + i + 1
				agents[i] = copyAs(m, name, fmt.Sprintf("SAMPLE %d", n), 100+n)
			}
			c, err := ask(ctx, s, g, meter, q, agents, seats, 1)
			if err != nil {
				return false, err
			}
			if ok, err := c.scored(ctx, q, overBudget); !ok || err != nil {
				return false, err
			}
			for _, round := range c.rounds {
				sc.Votes = append(sc.Votes, round...)
			}
			if len(c.rounds) == 0 {
				break // nothing came back: no sample to add, no budget spent
			}
		}
		r.Samples = sc
	}
	return true, nil
}

func labelOf(agents []*debate.Agent, name string) string {
	for _, a := range agents {
		if a.Name == name {
			return a.Label()
		}
	}
	return name
}

func tokensOf(rounds [][]Vote) int {
	n := 0
	for _, votes := range rounds {
		for _, v := range votes {
			n += v.Tokens
		}
	}
	return n
}

// plurality is the most frequent valid answer; a tie for the top is no
// answer.
func plurality(votes []Vote) string {
	count := map[string]int{}
	top := 0
	for _, v := range votes {
		if v.Valid && v.Answer != "" {
			count[v.Answer]++
			top = max(top, count[v.Answer])
		}
	}
	best := ""
	for a, n := range count {
		if n == top {
			if best != "" {
				return ""
			}
			best = a
		}
	}
	return best
}

// anyRight is the oracle over votes: some valid vote is the gold answer.
func anyRight(votes []Vote, gold string) bool {
	for _, v := range votes {
		if v.Valid && v.Answer == gold {
			return true
		}
	}
	return false
}

// sumOf is the calls, tokens and cost of votes.
func sumOf(votes []Vote) (calls, tokens int, cost float64) {
	for _, v := range votes {
		calls, tokens, cost = calls+v.Calls, tokens+v.Tokens, cost+v.Cost
	}
	return
}

// Wald's SPRT on agreement: H0, the leading answer holds a share sprtP0
// of the votes (answers are not settled); H1, it holds sprtP1. Accepting
// H1 stops with the leading answer; accepting H0 means the question is
// contested and the debate runs on.
const (
	sprtP0, sprtP1      = 1.0 / 3, 0.9
	sprtAlpha, sprtBeta = 0.05, 0.20
)

// sprtStop replays the test over r's votes in the order a council asking
// one member at a time would get them (round 1's seats, then round 2's,
// …): the number of votes it read before accepting H1 and the answer it
// stopped on, or 0 when it never did (the full debate decides).
func sprtStop(rounds [][]Vote) (int, string) {
	upper := math.Log((1 - sprtBeta) / sprtAlpha)
	lower := math.Log(sprtBeta / (1 - sprtAlpha))
	agree, disagree := math.Log(sprtP1/sprtP0), math.Log((1-sprtP1)/(1-sprtP0))
	count := map[string]int{}
	n := 0
	for _, votes := range rounds {
		for _, v := range votes {
			n++
			if v.Valid {
				count[v.Answer]++
			}
			leader, m := "", 0
			for a, c := range count {
				if c > m || (c == m && a < leader) {
					leader, m = a, c
				}
			}
			llr := float64(m)*agree + float64(n-m)*disagree
			switch {
			case llr >= upper:
				return n, leader
			case llr <= lower:
				return 0, ""
			}
		}
	}
	return 0, ""
}

// firstVotes is the first n votes of rounds in order.
func firstVotes(rounds [][]Vote, n int) []Vote {
	var out []Vote
	for _, votes := range rounds {
		for _, v := range votes {
			if len(out) == n {
				return out
			}
			out = append(out, v)
		}
	}
	return out
}

// addBaselineCells scores the baselines on one question: the oracle and
// the SPRT on the council's calls, the homogeneous council and
// self-consistency when they ran.
func addBaselineCells(out map[string]cell, r Result, rounds int) {
	oracle := anyRight(r.Rounds[0], r.Gold)
	for name, c := range out {
		c.reachable = oracle
		out[name] = c
	}
	calls, tokens, cost := sumOf(r.Rounds[0])
	out[RuleOracle] = cell{answer: r.Gold, correct: oracle, reachable: oracle, tokens: tokens, cost: cost, calls: calls}
	if n, answer := sprtStop(r.Rounds); n > 0 {
		calls, tokens, cost := sumOf(firstVotes(r.Rounds, n))
		out[RuleSPRT] = withReach(answered(answer, r.Gold, tokens, cost, calls), oracle)
	} else {
		out[RuleSPRT] = out[finalRule(rounds)]
	}
	addCouncilCells(out, SamePrefix, r.SameModel, r, rounds)
	addCouncilCells(out, ToolsPrefix, r.WithTools, r, rounds)
	if sc := r.Samples; sc != nil {
		calls, tokens, cost := sumOf(sc.Votes)
		out[RuleSelfConsistency] = withReach(answered(plurality(sc.Votes), r.Gold, tokens, cost, calls), anyRight(sc.Votes, r.Gold))
	}
}

// addCouncilCells scores a second council of the question (the same
// model's, the one with tools) as prefix+majority and prefix+its final
// verdict.
func addCouncilCells(out map[string]cell, prefix string, h *Homogeneous, r Result, rounds int) {
	if h == nil || len(h.Rounds) == 0 {
		return
	}
	hr := Result{Gold: r.Gold, Options: r.Options, Rounds: h.Rounds, Flips: h.Flips}
	hc := cells(hr, rounds, verdict.DefaultAdaptiveMargin)
	final := finalRule(rounds)
	reach := anyRight(h.Rounds[0], r.Gold)
	out[prefix+RuleMajority] = withReach(hc[RuleMajority], reach)
	if final != RuleMajority {
		out[prefix+final] = withReach(hc[final], reach)
	}
}

// finalRule is the condition of the council's final verdict.
func finalRule(rounds int) string {
	if rounds < 2 {
		return RuleMajority
	}
	return fmt.Sprintf("verdict_r%d", rounds)
}

func withReach(c cell, reachable bool) cell {
	c.reachable = reachable
	return c
}

// SPRTSummary is what the sequential test does on the run, replayed on the
// council's calls one at a time.
type SPRTSummary struct {
	P0        float64 `json:"p0"`
	P1        float64 `json:"p1"`
	Alpha     float64 `json:"alpha"`
	Beta      float64 `json:"beta"`
	Stopped   int     `json:"stopped"` // questions it stopped before the full debate
	Calls     int     `json:"calls"`   // calls it made over the run
	FullCalls int     `json:"full_calls"`
	// MeanCalls is calls a question; CallsSaved, TokensSaved and
	// CostSaved are against the debate as it ran.
	MeanCalls   float64 `json:"mean_calls"`
	CallsSaved  int     `json:"calls_saved"`
	TokensSaved int     `json:"tokens_saved"`
	CostSaved   float64 `json:"cost_saved_usd"`
}

// measureSPRT adds the test's stop on r (its cell c) to the summary.
func (rep *Report) measureSPRT(r Result, c cell) {
	calls, tokens, cost := 0, 0, 0.0
	for _, votes := range r.Rounds {
		n, t, d := sumOf(votes)
		calls, tokens, cost = calls+n, tokens+t, cost+d
	}
	s := &rep.SPRT
	s.FullCalls += calls
	s.Calls += c.calls
	if c.calls < calls {
		s.Stopped++
		s.CallsSaved += calls - c.calls
		s.TokensSaved += tokens - c.tokens
		s.CostSaved += cost - c.cost
	}
}

func (s *SPRTSummary) finish(questions int) {
	s.P0, s.P1, s.Alpha, s.Beta = sprtP0, sprtP1, sprtAlpha, sprtBeta
	if questions > 0 {
		s.MeanCalls = float64(s.Calls) / float64(questions)
	}
}

// ToolBoxes are the with-tools council's boxes: each member's tools as the
// run selected them (--tools), served natively, over the workspace folder;
// closing stops the MCP servers they started (lookupEnv fills their env).
func ToolBoxes(cfg *config.Config, workspace func() string, lookupEnv func(string) (string, bool)) (func(*debate.Agent) *toolbox.Box, func() error) {
	kit := toolkit.New(cfg, workspace, true, lookupEnv)
	return kit.Box, kit.Close
}
