package bench

import (
	"fmt"
	"sort"
	"strings"

	"github.com/parleyhq/parley/debate/verdict"
)

// The aggregation rules the bench scores on the same calls, beside each
// member alone and the verdict after each round (verdict_r2, verdict_r3).
const (
	RuleMajority  = "majority_r1" // the round-1 majority: a vote without debate
	RuleWeighted  = "weighted_r1" // round 1, each answer weighted by its confidence
	RuleBorda     = "borda_r1"    // round 1, Borda count over ranked options (option sets)
	RuleAdaptive  = "adaptive"    // the verdict where an adaptive council would stop
	RuleGuarded   = "guarded"     // the final verdict with conformity changes undone
	RuleEarlyStop = "early_stop"  // round 1 when unanimous, else the final verdict
)

// magiVotes turns a stored round back into the engine's votes (what the
// debate package's rules read: validity, answer, confidence).
func magiVotes(votes []Vote) []verdict.MagiVote {
	out := make([]verdict.MagiVote, len(votes))
	for i, v := range votes {
		out[i] = verdict.MagiVote{Agent: v.Agent, Valid: v.Valid, Ballot: verdict.Ballot{Vote: verdict.VoteInvalid, Confidence: v.Confidence}}
		if v.Valid {
			out[i].Vote = verdict.Vote(v.Answer)
		}
	}
	return out
}

func magiRounds(r Result) [][]verdict.MagiVote {
	out := make([][]verdict.MagiVote, len(r.Rounds))
	for k, votes := range r.Rounds {
		out[k] = magiVotes(votes)
	}
	return out
}

// adaptiveStopRound is the round after which an adaptive council stops on
// this question (the last round run when none), and why.
func adaptiveStopRound(r Result, margin float64) (int, string) {
	switch {
	case r.StopReason != "":
		return len(r.Rounds), r.StopReason // the council ran adaptively: it stopped here
	case r.EarlyStopped:
		return len(r.Rounds), verdict.StopUnanimous
	}
	rounds := magiRounds(r)
	for k := 1; k < len(rounds); k++ {
		if why := verdict.AdaptiveStop(rounds[:k], r.Flips, margin); why != "" {
			return k, why
		}
	}
	return len(r.Rounds), ""
}

// guardedVerdict is the final verdict with every conformity change undone.
func guardedVerdict(r Result) (string, []string) {
	votes, discounted := verdict.GuardedVotes(magiRounds(r), r.Flips)
	_, answer := verdict.DecideAnswers(votes)
	return answer, discounted
}

// bordaAnswer counts round 1 by Borda: over k options, a member's first
// choice earns k−1 points, the next k−2, …; options it did not rank share
// the points left. A member without a ranking ranks only its answer. A tie
// for the top is no answer.
func bordaAnswer(votes []Vote, options int) string {
	if options < 2 {
		return ""
	}
	points := make([]float64, options)
	for _, v := range votes {
		if !v.Valid {
			continue
		}
		ranked := map[int]bool{}
		pos := 0
		for _, letter := range append([]string{v.Answer}, v.Ranking...) {
			if len(letter) != 1 {
				continue
			}
			i := int(letter[0]) - 'A'
			if i < 0 || i >= options || ranked[i] {
				continue
			}
			ranked[i] = true
			points[i] += float64(options - 1 - pos)
			pos++
		}
		if left := options - pos; left > 0 {
			share := float64(left-1) / 2 // the mean of 0 … left-1 points
			for i := range points {
				if !ranked[i] {
					points[i] += share
				}
			}
		}
	}
	best, top := -1, -1.0
	for i, p := range points {
		switch {
		case p > top:
			best, top = i, p
		case p == top:
			best = -1
		}
	}
	if best < 0 || top <= 0 {
		return ""
	}
	return string(rune('A' + best))
}

// Comparison is a paired test of two rules on the same questions: how
// often each was right where the other was wrong, and the exact McNemar p.
type Comparison struct {
	A      string  `json:"a"`
	B      string  `json:"b"`
	Delta  float64 `json:"delta"` // accuracy(a) − accuracy(b)
	AOnly  int     `json:"a_only_right"`
	BOnly  int     `json:"b_only_right"`
	PValue float64 `json:"p_value"`
}

// Significant is the threshold the report marks comparisons at.
const Significant = 0.05

// compareRules pairs every two rules (members aside) over the questions.
func compareRules(names []string, scored []map[string]cell, n int) []Comparison {
	var rules []string
	for _, name := range names {
		if !strings.HasPrefix(name, "member:") && name != RuleOracle {
			rules = append(rules, name)
		}
	}
	out := []Comparison{}
	for i, a := range rules {
		for _, b := range rules[:i] {
			c := Comparison{A: a, B: b}
			for _, q := range scored {
				switch ra, rb := q[a].correct, q[b].correct; {
				case ra && !rb:
					c.AOnly++
				case rb && !ra:
					c.BOnly++
				}
			}
			if n > 0 {
				c.Delta = float64(c.AOnly-c.BOnly) / float64(n)
			}
			c.PValue = McNemarExact(c.AOnly, c.BOnly)
			out = append(out, c)
		}
	}
	return out
}

// AdaptiveSummary is what adaptive rounds do on the run: where councils
// stop and why, and what stopping there saves against the full debate.
type AdaptiveSummary struct {
	Margin      float64        `json:"margin"`
	Stops       map[string]int `json:"stops"` // by stop reason; "" : ran every round
	CallsSaved  int            `json:"calls_saved"`
	TokensSaved int            `json:"tokens_saved"`
	CostSaved   float64        `json:"cost_saved_usd"`
	// Ran says the councils themselves stopped (--adaptive); otherwise the
	// stops are replayed on full debates.
	Ran bool `json:"ran"`
}

// GuardSummary is what the conformity guard does to the final verdict.
type GuardSummary struct {
	Discounted int `json:"discounted"` // final votes counted as before a conformity change
	Questions  int `json:"questions"`  // questions with one or more
	Changed    int `json:"changed"`    // questions whose correctness the guard changed
}

// stopNames reads stop reasons for people.
var stopNames = map[string]string{verdict.StopUnanimous: "stop on a unanimous round 1", verdict.StopConfident: "on a confident round 1",
	verdict.StopSettled: "after an unchanged round 2", verdict.StopNoNewArgument: "after a round 2 without new arguments", "": "run all rounds"}

// stopLine is the adaptive summary in one line.
func (a AdaptiveSummary) stopLine() string {
	var reasons []string
	for why := range a.Stops {
		reasons = append(reasons, why)
	}
	sort.Slice(reasons, func(i, j int) bool { return stopOrder(reasons[i]) < stopOrder(reasons[j]) })
	var parts []string
	for _, why := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", a.Stops[why], stopNames[why]))
	}
	return strings.Join(parts, ", ")
}

func stopOrder(why string) int {
	for i, w := range []string{verdict.StopUnanimous, verdict.StopConfident, verdict.StopSettled, verdict.StopNoNewArgument, ""} {
		if w == why {
			return i
		}
	}
	return 9
}
