package verdict

import (
	"fmt"
	"sort"
	"strings"
)

// Why an adaptive council stopped before its last planned round
// (MagiResult.StopReason); "" when it ran every round.
const (
	// StopUnanimous: round 1 was unanimous (adaptive or early stop).
	StopUnanimous = "unanimous"
	// StopConfident: round 1 had a majority whose confidence-weighted
	// margin reached the threshold.
	StopConfident = "confident"
	// StopSettled: no member changed its vote in round 2.
	StopSettled = "settled"
	// StopNoNewArgument: every round-2 change was conformity (no new
	// argument), so round 3 would only weigh the same arguments again.
	StopNoNewArgument = "no_new_argument"
	// StopHost: the host stopped the council at a checkpoint.
	StopHost = "host"
)

// DefaultAdaptiveMargin is modes.magi.adaptive_margin's default: the
// leading answer's confidence must exceed the rest's by half the council's
// total confidence (e.g. 0.9 + 0.8 against 0.5: (1.7 − 0.5) / 2.2 = 0.55).
const DefaultAdaptiveMargin = 0.5

// Rules that decide a verdict (MagiResult.Rule).
const (
	RuleMajority        = "majority"         // the last round's votes, as cast
	RuleGuardedMajority = "guarded_majority" // with the guard discounting conformity changes
)

// WeightedMargin is round votes' confidence-weighted margin: the weight
// (summed confidence) of the leading answer minus the runner-up's, over
// the total weight, where an invalid vote weighs 1 against the leader. It
// is 0 without confidences (approve votes carry none) or votes.
func WeightedMargin(votes []MagiVote) float64 {
	weights, invalid := answerWeights(votes)
	total := invalid
	var ws []float64
	for _, w := range weights {
		ws = append(ws, w)
		total += w
	}
	if total <= 0 || len(ws) == 0 {
		return 0
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(ws)))
	second := invalid
	if len(ws) > 1 {
		second += ws[1]
	}
	return max(0, (ws[0]-second)/total)
}

// WeightedAnswer is the answer with the most summed confidence among valid
// votes; "" on a tie or without confidences.
func WeightedAnswer(votes []MagiVote) Vote {
	weights, _ := answerWeights(votes)
	var best Vote
	bestW, tie := 0.0, false
	for v, w := range weights {
		switch {
		case w > bestW:
			best, bestW, tie = v, w, false
		case w == bestW:
			tie = true
		}
	}
	if tie || bestW == 0 {
		return ""
	}
	return best
}

func answerWeights(votes []MagiVote) (map[Vote]float64, float64) {
	weights := map[Vote]float64{}
	invalid := 0.0
	for _, v := range votes {
		if !v.Valid {
			invalid++
			continue
		}
		weights[v.Vote] += v.Confidence
	}
	return weights, invalid
}

// AdaptiveStop says whether an adaptive council stops after the last of
// rounds, and why ("" : it goes on). After round 1: unanimous, or a
// majority whose WeightedMargin reaches margin. After round 2: nothing
// changed, or every change was conformity (flips are AuditFlips of the
// rounds). Round 3 is the last anyway.
func AdaptiveStop(rounds [][]MagiVote, flips []Flip, margin float64) string {
	switch len(rounds) {
	case 1:
		votes := rounds[0]
		if Unanimous(votes) {
			return StopUnanimous
		}
		words := make([]Vote, len(votes))
		for i, v := range votes {
			words[i] = v.Vote
		}
		if _, answer := DecideAnswers(words); answer != "" && WeightedMargin(votes) >= margin && margin > 0 {
			return StopConfident
		}
	case 2:
		moved, argued := false, false
		for _, f := range flips {
			if f.ToRound == 2 {
				moved, argued = true, argued || !f.Conformity
			}
		}
		switch {
		case !moved:
			return StopSettled
		case !argued:
			return StopNoNewArgument
		}
	}
	return ""
}

// GuardedVotes are the last round's votes with every conformity change
// undone: a member that changed its vote without a new argument counts
// with the vote it held before. discounted names those members.
func GuardedVotes(rounds [][]MagiVote, flips []Flip) (votes []Vote, discounted []string) {
	if len(rounds) == 0 {
		return nil, nil
	}
	conformed := map[[2]any]bool{}
	for _, f := range flips {
		if f.Conformity {
			conformed[[2]any{f.Agent, f.ToRound}] = true
		}
	}
	votes = make([]Vote, len(rounds[0]))
	undone := make([]bool, len(votes))
	for i, v := range rounds[0] {
		votes[i] = v.Vote
	}
	for r := 2; r <= len(rounds); r++ {
		for i, now := range rounds[r-1] {
			if i >= len(votes) || i >= len(rounds[r-2]) {
				break
			}
			prev := rounds[r-2][i]
			switch {
			case now.Valid && prev.Valid && now.Vote == prev.Vote:
				// kept: an undone change stays undone
			case now.Valid && prev.Valid && conformed[[2]any{now.Agent, r}]:
				undone[i] = true
			default:
				votes[i], undone[i] = now.Vote, false
			}
		}
	}
	for i, u := range undone {
		if u {
			discounted = append(discounted, rounds[len(rounds)-1][i].Agent)
		}
	}
	return votes, discounted
}

// DecisionNote is what a verdict line adds about how the council decided:
// the rule, why it stopped early and the calls that saved, whom the guard
// did not count. "" for a cancelled council.
func DecisionNote(res *MagiResult) string {
	if res.Cancelled || res.Rule == "" {
		return ""
	}
	parts := []string{"rule: majority"}
	if res.Rule == RuleGuardedMajority {
		parts[0] = "rule: guarded majority"
		if len(res.Discounted) > 0 {
			parts[0] += " (not counted: the change without a new argument of " + strings.Join(res.Discounted, ", ") + ")"
		}
	}
	switch res.StopReason {
	case StopUnanimous:
		parts = append(parts, "stopped after round 1: unanimous")
	case StopConfident:
		parts = append(parts, fmt.Sprintf("stopped after round 1: confidence-weighted margin %.2f", res.Margin))
	case StopSettled:
		parts = append(parts, "stopped after round 2: no vote changed")
	case StopNoNewArgument:
		parts = append(parts, "stopped after round 2: the changes brought no new argument")
	}
	if res.CallsSaved > 0 {
		parts = append(parts, fmt.Sprintf("%d calls saved", res.CallsSaved))
	}
	return " · " + strings.Join(parts, " · ")
}
