// MAGI's votes and results, as the core's events carry them to every door.

package verdict

import (
	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/providers"
)

// MagiRounds is the length of a full MAGI council.
const MagiRounds = 3

// AnswerSchemaName names the structured output of MAGI's answer-type
// councils (the demo agents and bench's simulation answer to it).
const AnswerSchemaName = "magi_answer"

// MagiVote is one member's outcome in one round.
type MagiVote struct {
	Agent    string          `json:"agent"`
	Display  string          `json:"display"`
	Provider string          `json:"provider"`
	Model    string          `json:"model"`
	Round    int             `json:"round"`
	Ballot                   // Vote is VoteInvalid when Valid is false
	Valid    bool            `json:"valid"`            // a vote was read
	Failed   bool            `json:"failed,omitempty"` // the provider failed (as opposed to an unreadable answer)
	Error    string          `json:"error,omitempty"`  // why the vote is invalid
	Attempts int             `json:"attempts"`         // calls made: 2 when the answer had to be asked again
	Turn     int             `json:"turn"`             // history entry of the last attempt
	Usage    providers.Usage `json:"usage"`
	Cost     float64         `json:"cost_usd"`
	// Citations is the core's check of what the vote cites (evidencecheck.go).
	Citations evidence.Check `json:"citations,omitzero"`
}

// MagiUsage is one member's tokens and cost over the whole council.
type MagiUsage struct {
	Agent    string          `json:"agent"`
	Display  string          `json:"display"`
	Provider string          `json:"provider"`
	Model    string          `json:"model"`
	Calls    int             `json:"calls"`
	Usage    providers.Usage `json:"usage"`
	Cost     float64         `json:"cost_usd"`
}

// MagiResult is a finished (or cancelled) council.
type MagiResult struct {
	Question  string          `json:"question"`
	Rounds    [][]MagiVote    `json:"rounds"` // Rounds[r-1][i]: round r, member i
	Verdict   Verdict         `json:"verdict"`
	Tally     map[string]int  `json:"tally"`
	Flips     []Flip          `json:"flips"`
	Agents    []MagiUsage     `json:"agents"`
	Usage     providers.Usage `json:"usage"`
	Cost      float64         `json:"cost_usd"`
	Cancelled bool            `json:"cancelled"`
	// Evidence is the council's evidence policy when its members had tools
	// or its configuration asks (EvidenceOptional, EvidenceRequired): the
	// outcome then states how many votes cite evidence.
	Evidence string `json:"evidence,omitempty"`
	// AnswerType is set for answer-type councils (omitted for approve),
	// Answer to the majority answer ("" without one; Verdict holds it too).
	AnswerType AnswerType `json:"answer_type,omitempty"`
	Answer     string     `json:"answer,omitempty"`
	// EarlyStopped: round 1 was unanimous and early stop ended the council.
	EarlyStopped bool `json:"early_stopped,omitempty"`
	// StopReason says why the council ended before its planned rounds
	// (StopUnanimous, StopConfident, StopSettled, StopNoNewArgument; ""
	// when it ran them all); CallsSaved counts the calls it did not make
	// (one a member and skipped round).
	StopReason string `json:"stop_reason,omitempty"`
	CallsSaved int    `json:"calls_saved,omitempty"`
	// Rule is the rule that decided (RuleMajority, RuleGuardedMajority);
	// Discounted names the members whose change without a new argument the
	// guard left out of it.
	Rule       string   `json:"rule,omitempty"`
	Discounted []string `json:"discounted,omitempty"`
	// Margin is round 1's confidence-weighted margin (answer types).
	Margin float64 `json:"margin,omitempty"`
	// Sentence is the outcome as every door prints it (VerdictSentence).
	Sentence string `json:"sentence,omitempty"`
}

// AuditFlips finds every vote change between consecutive rounds and flags
// conformity: a change without a new argument. A change is argued when its
// reasoning has MinNewWords content words absent from the member's own
// earlier reasoning and from the opinions it was shown (restating someone
// else's reasoning is not a new one), or when the argument it names in
// changed_by has MinNewWords content words its own earlier reasoning lacked
// (a peer's point it had not weighed; "the majority agrees" names none).
func AuditFlips(rounds [][]MagiVote) []Flip {
	var flips []Flip
	for r := 2; r <= len(rounds); r++ {
		before, now := rounds[r-2], rounds[r-1]
		for i := range now {
			if i >= len(before) {
				break
			}
			from, to := before[i], now[i]
			if !from.Valid || !to.Valid || from.Vote == to.Vote || from.Agent != to.Agent { // a seat the host swapped: another agent, not a flip
				continue
			}
			var own, seen []string
			for _, earlier := range rounds[:r-1] {
				own = append(own, earlier[i].Reasoning, earlier[i].Summary)
			}
			seen = append(seen, own...)
			for _, o := range ShownOpinions(i, r, rounds[:r-1]) {
				seen = append(seen, o.Reasoning, o.Summary)
			}
			n := max(CountNewWords(to.Reasoning, seen), CountNewWords(to.ChangedBy, own))
			flips = append(flips, Flip{Agent: to.Agent, FromRound: r - 1, ToRound: r, From: from.Vote, To: to.Vote,
				NewWords: n, Conformity: n < MinNewWords, ChangedBy: to.ChangedBy})
		}
	}
	return flips
}

// shownOpinions are the opinions member i reads in round: in round 2 the
// other members' round-1 opinions, in round 3 every member's round-2
// opinion (its own round-1 opinion comes as its earlier answer).
func ShownOpinions(i, round int, prev [][]MagiVote) []MagiVote {
	switch {
	case round == 2 && len(prev) >= 1:
		var out []MagiVote
		for j, v := range prev[0] {
			if j != i {
				out = append(out, v)
			}
		}
		return out
	case round >= 3 && len(prev) >= round-1:
		return prev[round-2]
	}
	return nil
}
