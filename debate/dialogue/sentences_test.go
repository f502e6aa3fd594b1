package dialogue_test

import (
	"testing"

	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
)

// The outcome sentences, written out: what every door prints.
func TestOutcomeSentences(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ got, want string }{
		{dialogue.TalkSentence(dialogue.TalkFinished{Rounds: 3, Planned: 3, Turns: 11}), "ENDED after 3 of 3 rounds · 11 turns"},
		{dialogue.TalkSentence(dialogue.TalkFinished{Rounds: 1, Planned: 3, Turns: 5, Stopped: true}), "STOPPED after round 1 of 3 · 5 turns"},
		{dialogue.TalkSentence(dialogue.TalkFinished{Rounds: 0, Planned: 2, Turns: 1, Cancelled: true, Stopped: true}), "CANCELLED after round 0 of 2 · 1 turn"},
		{dialogue.StepSentence(dialogue.AlternateStepFinished{Step: 2, NextDisplay: "GPT",
			Turn: dialogue.AlternateTurn{Entries: []transcript.Entry{{Display: "Claude", Status: transcript.StatusComplete}}}}), "STEP 2: Claude answered · next: GPT"},
		{dialogue.StepSentence(dialogue.AlternateStepFinished{Step: 0, NextDisplay: "Claude",
			Turn: dialogue.AlternateTurn{Entries: []transcript.Entry{{Display: "Claude", Status: transcript.StatusComplete}, {Display: "GPT", Status: transcript.StatusComplete}}}}), "START: Claude and GPT answered · next: Claude"},
		{dialogue.StepSentence(dialogue.AlternateStepFinished{Step: 3, NextDisplay: "GPT", Error: "overloaded\nretry later"}), "STEP 3: FAILED: overloaded retry later · next: GPT"},
		{verdict.CouncilSentence(verdict.CouncilResult{Chairman: verdict.CouncilChair{Display: "Claude", Status: verdict.CouncilComplete},
			Aggregate: []verdict.CouncilScore{{Member: "gpt", Display: "GPT", MeanRank: 1.5, Rankings: 2}}}), "ANSWERED by the chairman (Claude) · top-ranked: GPT, mean rank 1.50"},
		{verdict.CouncilSentence(verdict.CouncilResult{Chairman: verdict.CouncilChair{Display: "Claude", Status: verdict.CouncilFailed, Error: "timeout", Fallback: "gpt"},
			Answers: []verdict.CouncilAnswer{{Member: "gpt", Display: "GPT"}}}), "CHAIRMAN FAILED: timeout · FALLBACK: the top-ranked answer, by GPT"},
		{verdict.CouncilSentence(verdict.CouncilResult{Chairman: verdict.CouncilChair{Status: verdict.CouncilFailed, Error: "timeout"}}), "CHAIRMAN FAILED: timeout · no answer to fall back on"},
		{verdict.CouncilSentence(verdict.CouncilResult{Cancelled: true}), ""},
		// A verdict stands on the valid votes (SPEC §6); only INCOMPLETE is no decision.
		{verdict.NoDecision(&verdict.MagiResult{Verdict: verdict.VerdictApproved, Rounds: [][]verdict.MagiVote{{
			{Display: "MELCHIOR", Round: 1, Valid: true, Ballot: verdict.Ballot{Vote: verdict.VoteApprove}},
			{Display: "BALTHASAR", Round: 1, Valid: true, Ballot: verdict.Ballot{Vote: verdict.VoteApprove}},
			{Display: "CASPER", Round: 1, Ballot: verdict.Ballot{Vote: verdict.VoteInvalid}}}}}), ""},
		{verdict.NoDecision(&verdict.MagiResult{Verdict: verdict.VerdictNoConsensus}), ""},
		{verdict.NoDecision(&verdict.MagiResult{Verdict: verdict.VerdictIncomplete, Rounds: [][]verdict.MagiVote{
			{{Display: "CASPER", Round: 1}},
			{{Display: "MELCHIOR", Round: 2, Valid: true, Ballot: verdict.Ballot{Vote: verdict.VoteApprove}},
				{Display: "BALTHASAR", Round: 2}, {Display: "CASPER", Round: 2}}}}),
			"the verdict is INCOMPLETE: the invalid votes (BALTHASAR round 2, CASPER round 2) leave no majority"},
		{verdict.NoDecision(&verdict.MagiResult{Verdict: verdict.VerdictIncomplete, Cancelled: true}), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// verdict sits below the engine's entries, so a council answer carries its
// entry's status as a string: complete is the entry's StatusComplete, and
// nothing else ranks.
func TestCouncilAnswerStatusIsTheEntrys(t *testing.T) {
	t.Parallel()
	for _, s := range []transcript.Status{transcript.StatusComplete, transcript.StatusPartial, transcript.StatusError, transcript.StatusCancelled, transcript.StatusStreaming} {
		got := verdict.CouncilAnswer{Status: string(s), Text: "an answer"}.Valid()
		if got != (s == transcript.StatusComplete) {
			t.Errorf("an answer of status %q: Valid() = %v", s, got)
		}
	}
}
