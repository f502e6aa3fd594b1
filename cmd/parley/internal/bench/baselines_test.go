package bench

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// The baselines run on the same questions through the real SDKs: the
// homogeneous council seats MELCHIOR's provider and model three times,
// self-consistency samples MELCHIOR until its tokens reach the debate's.
func TestBaselinesRunOnTheSameQuestions(t *testing.T) {
	t.Parallel()
	cfg, agents := ruleCouncil(t)
	melchior, err := agentFor(agents, "melchior", "--same-model")
	if err != nil {
		t.Fatal(err)
	}
	var out Outcome
	out, err = Run(context.Background(), Setup{Config: cfg, Agents: agents, Rounds: 3, Workers: 2, SameModel: melchior, SelfConsistency: melchior},
		questions(4), nil)
	if err != nil || len(out.Results) != 4 {
		t.Fatal(err, len(out.Results))
	}
	rep := Measure(out.Results, members, 3)
	byName := map[string]Condition{}
	for _, c := range rep.Conditions {
		byName[c.Name] = c
	}
	// Every sample is MELCHIOR's round-1 answer (right on q1 and q3); the
	// debate spends 9 calls of 20 tokens a question, so 9 samples of 20.
	if c := byName["self_consistency"]; c.Correct != 2 || c.Calls != 4*9 || c.Tokens != 4*9*20 || c.Lost != 0 {
		t.Errorf("self_consistency %+v", c)
	}
	// Three MELCHIORs: right in round 1 on q1 and q3; after round 3 on q1
	// and q2 (they argue their way to 20 on q2 and conform to 31 on q3).
	if c := byName["same:majority_r1"]; c.Correct != 2 || c.Calls != 4*3 {
		t.Errorf("same:majority_r1 %+v", c)
	}
	if c := byName["same:verdict_r3"]; c.Correct != 2 || c.Calls != 4*9 || c.Lost != 1 {
		t.Errorf("same:verdict_r3 %+v", c)
	}
	// The council's own conditions are those of the run without baselines.
	if c := byName["verdict_r3"]; c.Correct != 2 || c.Calls != 4*9 {
		t.Errorf("verdict_r3 %+v", c)
	}
	if rep.Calls != 4*(9+9+9) {
		t.Errorf("calls %d, want the council's, the homogeneous council's and the samples'", rep.Calls)
	}
	for _, r := range out.Results {
		if r.SameModel == nil || r.SameModel.Model != melchior.Model || len(r.SameModel.Rounds) != 3 || r.Samples == nil || len(r.Samples.Votes) != 9 {
			t.Fatalf("%s: baselines not recorded: %+v %+v", r.ID, r.SameModel, r.Samples)
		}
	}
	// The item records carry what the members said and each condition's answer.
	it := rep.Items[1]
	if it.ID != "q2" || it.Gold != "20" || !strings.Contains(it.Question, "#20") || len(it.Rounds) != 3 || len(it.SelfConsistency) != 9 || len(it.SameModel) != 3 {
		t.Fatalf("item %+v", it)
	}
	if v := it.Rounds[1][0]; v.Agent != "melchior" || v.Answer != "20" || v.Confidence != 0.8 || !strings.Contains(v.ChangedBy, "seven dozen") ||
		v.ToolCalls == nil || v.Evidence == nil {
		t.Errorf("melchior's round-2 record %+v", v)
	}
	if c := it.Conditions["majority_r1"]; c.Answer != "21" || c.Correct || c.Calls != 3 {
		t.Errorf("q2 majority_r1 %+v", c)
	}
	if c := it.Conditions["weighted_r1"]; c.Answer != "20" || !c.Correct {
		t.Errorf("q2 weighted_r1 %+v", c)
	}
	if it.Calls != 27 || it.Tokens != 27*20 {
		t.Errorf("q2 calls %d tokens %d", it.Calls, it.Tokens)
	}
	raw, _ := json.Marshal(it)
	for _, key := range []string{`"tool_calls":[]`, `"evidence":[]`, `"changed_by":""`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("item JSON lacks %s: %s", key, raw)
		}
	}
}

func TestSPRTStopsOnAgreementAndDebatesContestedQuestions(t *testing.T) {
	v := func(answers ...string) []Vote {
		out := make([]Vote, len(answers))
		for i, a := range answers {
			out[i] = Vote{Valid: a != "", Answer: a, Calls: 1}
		}
		return out
	}
	for _, c := range []struct {
		name   string
		rounds [][]Vote
		n      int
		answer string
	}{
		{"unanimous round 1", [][]Vote{v("7", "7", "7")}, 3, "7"},
		{"two of three, then agreement", [][]Vote{v("7", "7", "8"), v("7", "7", "7")}, 6, "7"},
		{"split: contested", [][]Vote{v("7", "8", "9"), v("7", "7", "7")}, 0, ""},
		{"an invalid vote is disagreement", [][]Vote{v("7", "", "7"), v("7", "7", "7")}, 6, "7"},
		{"never settles", [][]Vote{v("7", "7", "8")}, 0, ""},
	} {
		if n, a := sprtStop(c.rounds); n != c.n || a != c.answer {
			t.Errorf("%s: stopped after %d votes on %q, want %d on %q", c.name, n, a, c.n, c.answer)
		}
	}
}

func TestPluralityCallsATieNoAnswer(t *testing.T) {
	v := func(answers ...string) []Vote {
		out := make([]Vote, len(answers))
		for i, a := range answers {
			out[i] = Vote{Valid: a != "", Answer: a}
		}
		return out
	}
	for votes, want := range map[string]string{"7 7 8": "7", "7 8": "", "7 8 8 7 9": "", " 8": "8", "": "", "9 8 8 7 7 7": "7"} {
		if got := plurality(v(strings.Split(votes, " ")...)); got != want {
			t.Errorf("plurality(%s) = %q, want %q", votes, got, want)
		}
	}
}

func TestSimulatedSamplesDrawAgain(t *testing.T) {
	qs := Arith(40, 3)
	_, council := ruleCouncil(t)
	agents := Simulate(council, members, qs, 3)
	base := agents[0].Provider.(*simMember)
	same := 0
	for _, q := range qs {
		a, _ := base.firstAnswer(base.rng(q.Prompt(), 1), q.Prompt(), q.Answer)
		s := base.Sample(1, "SAMPLE 1").(*simMember)
		b, _ := s.firstAnswer(s.rng(q.Prompt(), 1), q.Prompt(), q.Answer)
		if a == b {
			same++
		}
	}
	// A draw repeats the model's answer with p = 0.6, else draws again
	// (right with p = 0.8): far from always, far from never.
	if same == 40 || same < 20 {
		t.Errorf("a sample repeated the member's answer on %d of 40 problems", same)
	}
}
