package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// Each member's own round-1 reasoning; restating another's is conformity.
var reasons = map[string]string{"melchior": "Multiplying crates by apples gives the total directly.",
	"balthasar": "Subtracting spoiled fruit leaves fewer than counted.", "casper": "Intuition suggests roughly seven dozen."}

type move struct {
	offset    int     // answer − gold
	conf      float64 // confidence
	reasoning string  // "" : the member's own
	changedBy string
}

// ruleScript is, per question (gold 10, 20, 30, 40) and member, the moves
// of rounds 1, 2, 3 (a missing round repeats the last):
//   - q1: a confident right majority; CASPER joins it with an argument.
//   - q2: a wrong majority of unsure members against a sure right CASPER;
//     MELCHIOR joins CASPER with an argument in round 2.
//   - q3: MELCHIOR and BALTHASAR, right, conform to CASPER's wrong answer.
//   - q4: unanimous and wrong.
var ruleScript = [4]map[string][]move{
	{"melchior": {{0, .9, "", ""}}, "balthasar": {{0, .9, "", ""}},
		"casper": {{1, .3, "", ""}, {0, .8, "", "MELCHIOR's point: multiplying crates by apples gives it directly."}}},
	{"melchior": {{1, .3, "", ""}, {0, .8, "", "CASPER's estimate of seven dozen fits the harvest better."}}, "balthasar": {{1, .3, "", ""}},
		"casper": {{0, .95, "", ""}}},
	{"melchior": {{0, .6, "", ""}, {1, .6, reasons["casper"], ""}}, "balthasar": {{0, .6, "", ""}, {1, .6, reasons["casper"], ""}},
		"casper": {{1, .6, "", ""}}},
	{"melchior": {{1, .7, "", ""}}, "balthasar": {{1, .7, "", ""}}, "casper": {{1, .7, "", ""}}},
}

func scriptedReply(agent string) func(providertest.Request) providertest.Reply {
	return func(r providertest.Request) providertest.Reply {
		gold, round := goldOf(r), max(1, roundOf(r))
		moves := ruleScript[gold/10-1][agent]
		m := moves[min(round, len(moves))-1]
		if m.reasoning == "" {
			m.reasoning = reasons[agent]
		}
		text, _ := json.Marshal(map[string]any{"answer": fmt.Sprint(gold + m.offset), "confidence": m.conf,
			"reasoning": m.reasoning, "summary": "s", "changed_by": m.changedBy})
		return providertest.Reply{Text: string(text), Usage: providers.Usage{InputTokens: 10, OutputTokens: 10}}
	}
}

func ruleCouncil(t *testing.T) (*config.Config, []*debate.Agent) {
	return councilOf(t, providertest.OpenAI(t, scriptedReply("melchior")).URL, providertest.Anthropic(t, scriptedReply("balthasar")).URL,
		providertest.Gemini(t, scriptedReply("casper")).URL, providers.RetryPolicy{})
}

var members = []string{"melchior", "balthasar", "casper"}

func TestRulesOnTheSameCallsAreExact(t *testing.T) {
	t.Parallel()
	cfg, agents := ruleCouncil(t)
	out, err := Run(context.Background(), Setup{Config: cfg, Agents: agents, Rounds: 3, Workers: 2}, questions(4), nil)
	if err != nil || len(out.Results) != 4 {
		t.Fatal(err, len(out.Results))
	}
	rep := Measure(out.Results, members, 3)
	want := map[string]int{"member:melchior": 2, "member:balthasar": 2, "member:casper": 1, "majority_r1": 2, "weighted_r1": 3,
		"verdict_r2": 2, "verdict_r3": 2, "adaptive": 2, "guarded": 3, "early_stop": 2, "sprt": 2, "oracle": 3}
	// Right answers lost by the vote: q2's right CASPER under the round-1
	// majority, q3's right majority under the later verdicts.
	wantLost := map[string]int{"majority_r1": 1, "weighted_r1": 0, "verdict_r2": 1, "verdict_r3": 1, "adaptive": 1, "guarded": 0,
		"early_stop": 1, "sprt": 1}
	for _, c := range rep.Conditions {
		if c.Correct != want[c.Name] {
			t.Errorf("%s: %d correct, want %d", c.Name, c.Correct, want[c.Name])
		}
		if w, ok := wantLost[c.Name]; ok && c.Lost != w {
			t.Errorf("%s: %d right answers lost, want %d", c.Name, c.Lost, w)
		}
	}
	// The SPRT stops q1 after six votes (five agree), q4 after three
	// (unanimous); q2 and q3 turn contested in round 2 and debate on.
	if s := rep.SPRT; s.Stopped != 2 || s.Calls != 6+9+9+3 || s.FullCalls != 36 || s.CallsSaved != 9 || s.TokensSaved != 9*20 || s.MeanCalls != 27.0/4 {
		t.Errorf("sprt %+v", s)
	}
	// adaptive pays round 1 on q1 and q4, two rounds on q3, three on q2:
	// 7 rounds of 3 calls at 20 tokens each.
	if c := rep.Conditions[7]; c.Name != "adaptive" || c.Tokens != 7*3*20 {
		t.Errorf("adaptive %+v", c)
	}
	a := rep.Adaptive
	if a.Ran || a.CallsSaved != 15 || a.TokensSaved != 15*20 || fmt.Sprint(a.Stops) != "map[:1 confident:1 no_new_argument:1 unanimous:1]" {
		t.Errorf("adaptive summary %+v", a)
	}
	if rep.Guard != (GuardSummary{Discounted: 2, Questions: 1, Changed: 1}) {
		t.Errorf("guard summary %+v", rep.Guard)
	}
	pairs := map[string]Comparison{}
	for _, c := range rep.Comparisons {
		pairs[c.A+" "+c.B] = c
	}
	if c := pairs["guarded verdict_r3"]; c.AOnly != 1 || c.BOnly != 0 || c.Delta != 0.25 || c.PValue != 1 {
		t.Errorf("guarded against verdict_r3: %+v", c)
	}
	if c := pairs["weighted_r1 majority_r1"]; c.AOnly != 1 || c.BOnly != 0 {
		t.Errorf("weighted against majority: %+v", c)
	}
	if len(rep.Comparisons) != 8*7/2 {
		t.Errorf("%d comparisons of 8 rules", len(rep.Comparisons))
	}
	if r := rep.Flips.ByRound; len(r) != 1 || r[0] != (MemberFlips{Round: 2, RightToWrong: 2, WrongToRight: 2, Conformity: 2}) {
		t.Errorf("flips by round %+v", r)
	}
}

// Councils run with --adaptive stop where the replay said, and with
// --guard decide as the guarded rule did.
func TestAdaptiveAndGuardedRunsMatchTheirReplays(t *testing.T) {
	t.Parallel()
	cfg, agents := ruleCouncil(t)
	out, err := Run(context.Background(), Setup{Config: cfg, Agents: agents, Rounds: 3, Workers: 1, Adaptive: true, Guard: true}, questions(4), nil)
	if err != nil {
		t.Fatal(err)
	}
	var rounds []int
	for _, r := range out.Results {
		rounds = append(rounds, len(r.Rounds))
	}
	if fmt.Sprint(rounds) != "[1 3 2 1]" {
		t.Errorf("rounds run %v, want [1 3 2 1]", rounds)
	}
	if v := out.Results[2].Verdict; v != "30" {
		t.Errorf("q3 under the guard: %s", v)
	}
	rep := Measure(out.Results, members, 3)
	if !rep.Adaptive.Ran || rep.Adaptive.CallsSaved != 15 || rep.Calls != 4*9-15 {
		t.Errorf("adaptive %+v, calls %d", rep.Adaptive, rep.Calls)
	}
	for _, c := range rep.Conditions {
		if c.Name == "adaptive" && c.Correct != 2 {
			t.Errorf("adaptive as run: %d correct, want 2", c.Correct)
		}
	}
	var text strings.Builder
	WriteText(&text, rep)
	for _, want := range []string{"adaptive (margin 0.50, as the councils ran)", "saves 15 of 36 calls (42%)", "paired comparisons"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, text.String())
		}
	}
}

func TestBordaCountsRankings(t *testing.T) {
	t.Parallel()
	v := func(answer string, ranking ...string) Vote {
		return Vote{Valid: true, Answer: answer, Ranking: ranking}
	}
	for _, c := range []struct {
		votes []Vote
		want  string
	}{
		// A: 2+0+1 = 3, B: 1+2+2 = 5 (the second choice of two beats one first choice), C: 0+1+0 = 1
		{[]Vote{v("A", "A", "B", "C"), v("B", "B", "C", "A"), v("B", "B", "A", "C")}, "B"},
		{[]Vote{v("A", "A", "B", "C"), v("B", "B", "C", "A"), v("C", "C", "A", "B")}, ""}, // a perfect cycle ties
		// Without rankings the unranked options share the points left: plurality.
		{[]Vote{v("A"), v("A"), v("C")}, "A"},
		{[]Vote{v("C", "C", "A"), {Valid: false}, v("A", "A", "Z", "A", "")}, "A"},
	} {
		if got := bordaAnswer(c.votes, 3); got != c.want {
			t.Errorf("%+v: %q, want %q", c.votes, got, c.want)
		}
	}
}
