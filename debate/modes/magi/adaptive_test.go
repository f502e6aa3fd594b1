package magi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"

	"github.com/parleyhq/parley/providers/providertest"
)

// scriptedAnswer is one member's answer in one round.
type scriptedAnswer struct {
	answer     string
	confidence float64
	reasoning  string
	changedBy  string
}

func (s scriptedAnswer) json() string {
	return fmt.Sprintf(`{"answer":%q,"confidence":%v,"reasoning":%q,"summary":"says %s","changed_by":%q}`, s.answer, s.confidence, s.reasoning, s.answer, s.changedBy)
}

// own is a member's first reasoning: words no other member uses.
func own(agent string) string {
	return map[string]string{"melchior": "Multiplying crates by apples gives the total directly.",
		"balthasar": "Subtracting spoiled fruit leaves fewer than counted.", "casper": "Intuition suggests roughly seven dozen."}[agent]
}

// runScripted runs one number council on the script (agent → answers by
// round; a missing round repeats the last answer) and returns its outcome
// and how many calls each member got.
func runScripted(t *testing.T, script map[string][]scriptedAnswer, adjust func(*config.Config)) (verdict.MagiDecided, map[string]int) {
	res, calls, _ := runScriptedVerdict(t, script, adjust)
	return res, calls
}

// runScriptedVerdict is runScripted with the verdict entry's text, what
// the console and the web page show.
func runScriptedVerdict(t *testing.T, script map[string][]scriptedAnswer, adjust func(*config.Config)) (verdict.MagiDecided, map[string]int, string) {
	t.Helper()
	fc := debatetest.NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
		answers := script[agent]
		return debatetest.MagiReply(answers[min(round, len(answers))-1].json())
	}, func(c *config.Config) { c.Modes.Magi.AnswerType = "number"; adjust(c) })
	if err := fc.Engine.Submit(context.Background(), "How many apples?"); err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for name := range script {
		calls[name] = len(fc.Requests(name))
	}
	res := fc.Decided(t)
	verdict := ""
	for _, ev := range debatetest.EventsOf[debate.EntryAdded](fc.Events) {
		if ev.Entry.Kind == transcript.KindVerdict {
			verdict = ev.Entry.Text
		}
	}
	return res, calls, verdict
}

func TestAdaptiveCouncilStopsWhereMoreRoundsWouldNotChangeIt(t *testing.T) {
	t.Parallel()
	a := func(agent, answer string, conf float64) scriptedAnswer {
		return scriptedAnswer{answer: answer, confidence: conf, reasoning: own(agent)}
	}
	// CASPER joins 42 by restating MELCHIOR's reasoning: no new argument.
	conformed := scriptedAnswer{answer: "42", confidence: 0.5, reasoning: own("melchior")}
	argued := scriptedAnswer{answer: "42", confidence: 0.8, reasoning: own("melchior"),
		changedBy: "BALTHASAR's point: spoiled fruit was never removed from my estimate, so seven dozen overcounts badly."}
	cases := []struct {
		name       string
		script     map[string][]scriptedAnswer
		rounds     int
		stop       string
		saved      int
		verdict    string
		flips      int
		conformity int
	}{
		{"unanimous round 1", map[string][]scriptedAnswer{"melchior": {a("melchior", "42", .6)}, "balthasar": {a("balthasar", "42", .6)}, "casper": {a("casper", "42", .6)}},
			1, verdict.StopUnanimous, 6, "42", 0, 0},
		// (0.9 + 0.9 − 0.3) / 2.1 = 0.71 ≥ 0.5
		{"confident majority", map[string][]scriptedAnswer{"melchior": {a("melchior", "42", .9)}, "balthasar": {a("balthasar", "42", .9)}, "casper": {a("casper", "84", .3)}},
			1, verdict.StopConfident, 6, "42", 0, 0},
		// (0.5 + 0.5 − 0.9) / 1.9 = 0.05: round 2, where nobody moves
		{"unsure majority, nothing changes", map[string][]scriptedAnswer{"melchior": {a("melchior", "42", .5)}, "balthasar": {a("balthasar", "42", .5)}, "casper": {a("casper", "84", .9)}},
			2, verdict.StopSettled, 3, "42", 0, 0},
		{"round 2 moves without an argument", map[string][]scriptedAnswer{"melchior": {a("melchior", "42", .5)}, "balthasar": {a("balthasar", "42", .5)}, "casper": {a("casper", "84", .9), conformed}},
			2, verdict.StopNoNewArgument, 3, "42", 1, 1},
		{"round 2 moves with an argument", map[string][]scriptedAnswer{"melchior": {a("melchior", "42", .5)}, "balthasar": {a("balthasar", "42", .5)}, "casper": {a("casper", "84", .9), argued}},
			3, "", 0, "42", 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, calls := runScripted(t, c.script, func(cfg *config.Config) { cfg.Modes.Magi.Adaptive = true })
			if res.RoundsRun != c.rounds || res.StopReason != c.stop || res.CallsSaved != c.saved || string(res.Verdict) != c.verdict || res.Rule != verdict.RuleMajority {
				t.Errorf("rounds %d stop %q saved %d verdict %s rule %s; want %d %q %d %s", res.RoundsRun, res.StopReason, res.CallsSaved, res.Verdict, res.Rule, c.rounds, c.stop, c.saved, c.verdict)
			}
			conformity := 0
			for _, f := range res.Flips {
				if f.Conformity {
					conformity++
				}
			}
			if len(res.Flips) != c.flips || conformity != c.conformity {
				t.Errorf("flips %+v", res.Flips)
			}
			for name, n := range calls {
				if n != c.rounds {
					t.Errorf("%s was called %d times, want %d", name, n, c.rounds)
				}
			}
		})
	}
	// Without --adaptive the same unsure council runs all three rounds.
	res, _, line := runScriptedVerdict(t, cases[2].script, func(*config.Config) {})
	if res.RoundsRun != 3 || res.StopReason != "" || res.CallsSaved != 0 || line != "42 after round 3: 2 × 42, 1 × 84, 0 invalid · rule: majority" {
		t.Errorf("a plain council: %d rounds, stop %q, saved %d, verdict %q", res.RoundsRun, res.StopReason, res.CallsSaved, line)
	}
	// The verdict line says which rule decided and what stopping saved.
	_, _, line = runScriptedVerdict(t, cases[1].script, func(cfg *config.Config) { cfg.Modes.Magi.Adaptive, cfg.Modes.Magi.Guard = true, true })
	if want := "42 after round 1: 2 × 42, 1 × 84, 0 invalid · rule: guarded majority · stopped after round 1: confidence-weighted margin 0.71 · 6 calls saved"; line != want {
		t.Errorf("verdict line %q\nwant         %q", line, want)
	}
}

func TestGuardLeavesConformityOutOfTheVerdict(t *testing.T) {
	t.Parallel()
	first := map[string]scriptedAnswer{"melchior": {answer: "42", confidence: .7, reasoning: own("melchior")},
		"balthasar": {answer: "84", confidence: .7, reasoning: own("balthasar")}, "casper": {answer: "96", confidence: .7, reasoning: own("casper")}}
	// MELCHIOR moves to BALTHASAR's 84 in round 2, restating its reasoning,
	// and keeps 84 in round 3.
	follow := scriptedAnswer{answer: "84", confidence: .7, reasoning: own("balthasar")}
	script := map[string][]scriptedAnswer{"melchior": {first["melchior"], follow}, "balthasar": {first["balthasar"]}, "casper": {first["casper"]}}
	plain, _ := runScripted(t, script, func(*config.Config) {})
	guarded, _ := runScripted(t, script, func(c *config.Config) { c.Modes.Magi.Guard = true })
	if plain.Verdict != "84" || plain.Rule != verdict.RuleMajority || len(plain.Discounted) != 0 {
		t.Errorf("without the guard: %s by %s, discounted %v", plain.Verdict, plain.Rule, plain.Discounted)
	}
	if guarded.Verdict != verdict.VerdictNoConsensus || guarded.Rule != verdict.RuleGuardedMajority || strings.Join(guarded.Discounted, ",") != "melchior" {
		t.Errorf("with the guard: %s by %s, discounted %v", guarded.Verdict, guarded.Rule, guarded.Discounted)
	}
	// The same move with an argument named counts under the guard.
	script["melchior"][1].changedBy = "BALTHASAR's point: spoiled fruit leaves fewer apples than my crate count assumed."
	argued, _ := runScripted(t, script, func(c *config.Config) { c.Modes.Magi.Guard = true })
	if argued.Verdict != "84" || len(argued.Discounted) != 0 || argued.Flips[0].ChangedBy == "" || argued.Flips[0].Conformity {
		t.Errorf("an argued change under the guard: %s, discounted %v, flips %+v", argued.Verdict, argued.Discounted, argued.Flips)
	}
}

func TestRoundsTwoAndThreeAskForTheChangingArgument(t *testing.T) {
	t.Parallel()
	fc := debatetest.NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
		return debatetest.MagiReply(debatetest.MagiVoteJSON(agent, round, verdict.VoteApprove))
	})
	if err := fc.Engine.Submit(context.Background(), "Ship it?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, fc.Engine)
	for _, r := range fc.Requests("casper") {
		last := r.Messages[len(r.Messages)-1].Content
		asks := strings.Contains(last, `name in "changed_by" the argument that changed your mind`)
		if round := debatetest.MagiRoundOf(r.Messages); asks != (round > 1) {
			t.Errorf("round %d asks for changed_by: %v", round, asks)
		}
	}
}

func TestGuardedVotesUndoOnlyConformity(t *testing.T) {
	t.Parallel()
	v := func(agent string, vote verdict.Vote) verdict.MagiVote {
		return verdict.MagiVote{Agent: agent, Valid: true, Ballot: verdict.Ballot{Vote: vote}}
	}
	rounds := [][]verdict.MagiVote{{v("a", "1"), v("b", "2"), v("c", "3")}, {v("a", "2"), v("b", "2"), v("c", "2")}, {v("a", "2"), v("b", "3"), v("c", "2")}}
	flips := []verdict.Flip{{Agent: "a", ToRound: 2, Conformity: true}, {Agent: "c", ToRound: 2}, {Agent: "b", ToRound: 3, Conformity: true}}
	votes, discounted := verdict.GuardedVotes(rounds, flips)
	if fmt.Sprint(votes) != "[1 2 2]" || strings.Join(discounted, ",") != "a,b" {
		t.Errorf("guarded votes %v, discounted %v", votes, discounted)
	}
}

func TestWeightedMarginAndAnswer(t *testing.T) {
	t.Parallel()
	v := func(vote verdict.Vote, conf float64, valid bool) verdict.MagiVote {
		return verdict.MagiVote{Valid: valid, Ballot: verdict.Ballot{Vote: vote, Confidence: conf}}
	}
	for _, c := range []struct {
		votes  []verdict.MagiVote
		margin float64
		answer verdict.Vote
	}{
		{[]verdict.MagiVote{v("1", .9, true), v("1", .8, true), v("2", .5, true)}, (1.7 - .5) / 2.2, "1"},
		{[]verdict.MagiVote{v("1", .4, true), v("2", .9, true), v("3", .3, true)}, (.9 - .4) / 1.6, "2"},
		{[]verdict.MagiVote{v("1", .9, true), v("1", .9, true), v(verdict.VoteInvalid, 0, false)}, (1.8 - 1) / 2.8, "1"},
		{[]verdict.MagiVote{v("1", .5, true), v("2", .5, true)}, 0, ""},
		{[]verdict.MagiVote{v(verdict.VoteApprove, 0, true), v(verdict.VoteApprove, 0, true)}, 0, ""},
	} {
		if m, a := verdict.WeightedMargin(c.votes), verdict.WeightedAnswer(c.votes); magiAbsDiff(m, c.margin) > 1e-12 || a != c.answer {
			t.Errorf("%+v: margin %v answer %q, want %v %q", c.votes, m, a, c.margin, c.answer)
		}
	}
}
