package debate_test

import (
	"testing"

	. "github.com/parleyhq/parley/debate"
)

// The outcome sentences, written out: what every door prints.
func TestOutcomeSentences(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ got, want string }{
		{TalkSentence(TalkFinished{Rounds: 3, Planned: 3, Turns: 11}), "ENDED after 3 of 3 rounds · 11 turns"},
		{TalkSentence(TalkFinished{Rounds: 1, Planned: 3, Turns: 5, Stopped: true}), "STOPPED after round 1 of 3 · 5 turns"},
		{TalkSentence(TalkFinished{Rounds: 0, Planned: 2, Turns: 1, Cancelled: true, Stopped: true}), "CANCELLED after round 0 of 2 · 1 turn"},
		{StepSentence(AlternateStepFinished{Step: 2, NextDisplay: "GPT",
			Turn: AlternateTurn{Entries: []Entry{{Display: "Claude", Status: StatusComplete}}}}), "STEP 2: Claude answered · next: GPT"},
		{StepSentence(AlternateStepFinished{Step: 0, NextDisplay: "Claude",
			Turn: AlternateTurn{Entries: []Entry{{Display: "Claude", Status: StatusComplete}, {Display: "GPT", Status: StatusComplete}}}}), "START: Claude and GPT answered · next: Claude"},
		{StepSentence(AlternateStepFinished{Step: 3, NextDisplay: "GPT", Error: "overloaded\nretry later"}), "STEP 3: FAILED: overloaded retry later · next: GPT"},
		{CouncilSentence(CouncilResult{Chairman: CouncilChair{Display: "Claude", Status: CouncilComplete},
			Aggregate: []CouncilScore{{Member: "gpt", Display: "GPT", MeanRank: 1.5, Rankings: 2}}}), "ANSWERED by the chairman (Claude) · top-ranked: GPT, mean rank 1.50"},
		{CouncilSentence(CouncilResult{Chairman: CouncilChair{Display: "Claude", Status: CouncilFailed, Error: "timeout", Fallback: "gpt"},
			Answers: []CouncilAnswer{{Member: "gpt", Display: "GPT"}}}), "CHAIRMAN FAILED: timeout · FALLBACK: the top-ranked answer, by GPT"},
		{CouncilSentence(CouncilResult{Chairman: CouncilChair{Status: CouncilFailed, Error: "timeout"}}), "CHAIRMAN FAILED: timeout · no answer to fall back on"},
		{CouncilSentence(CouncilResult{Cancelled: true}), ""},
		// A verdict stands on the valid votes (SPEC §6); only INCOMPLETE is no decision.
		{NoDecision(&MagiResult{Verdict: VerdictApproved, Rounds: [][]MagiVote{{
			{Display: "MELCHIOR", Round: 1, Valid: true, Ballot: Ballot{Vote: VoteApprove}},
			{Display: "BALTHASAR", Round: 1, Valid: true, Ballot: Ballot{Vote: VoteApprove}},
			{Display: "CASPER", Round: 1, Ballot: Ballot{Vote: VoteInvalid}}}}}), ""},
		{NoDecision(&MagiResult{Verdict: VerdictNoConsensus}), ""},
		{NoDecision(&MagiResult{Verdict: VerdictIncomplete, Rounds: [][]MagiVote{
			{{Display: "CASPER", Round: 1}},
			{{Display: "MELCHIOR", Round: 2, Valid: true, Ballot: Ballot{Vote: VoteApprove}},
				{Display: "BALTHASAR", Round: 2}, {Display: "CASPER", Round: 2}}}}),
			"the verdict is INCOMPLETE: the invalid votes (BALTHASAR round 2, CASPER round 2) leave no majority"},
		{NoDecision(&MagiResult{Verdict: VerdictIncomplete, Cancelled: true}), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
