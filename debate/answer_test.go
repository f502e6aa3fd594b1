package debate_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/config"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/verdict"

	"github.com/parleyhq/parley/providers/providertest"
)

// A number council with early stop: a unanimous round 1 (written three
// ways) decides after three calls, with the answer as its verdict.
func TestMagiAnswerCouncilStopsEarlyWhenUnanimous(t *testing.T) {
	t.Parallel()
	forms := map[string]string{"melchior": "1,000", "balthasar": "1000.0", "casper": " 1000 "}
	fc := NewFakeCouncil(t, known, func(agent string, _ int, r providertest.Request) providertest.Reply {
		return MagiReply(answerJSON(forms[agent]))
	}, func(c *config.Config) { c.Modes.Magi.AnswerType, c.Modes.Magi.EarlyStop = "number", true })
	if err := fc.Engine.Submit(context.Background(), "What is 10*100?"); err != nil {
		t.Fatal(err)
	}
	res := fc.Decided(t)
	if res.Verdict != "1000" || res.Answer != "1000" || !res.EarlyStopped || len(res.Rounds) != 1 || res.AnswerType != verdict.AnswerNumber {
		t.Fatalf("verdict %q answer %q early %v rounds %d", res.Verdict, res.Answer, res.EarlyStopped, len(res.Rounds))
	}
	calls := 0
	for _, a := range []string{"melchior", "balthasar", "casper"} {
		calls += len(fc.Requests(a))
		if req := fc.Requests(a)[0]; !strings.Contains(string(req.Body), `"confidence"`) {
			t.Errorf("%s was not asked for the answer schema", a)
		}
	}
	if calls != 3 {
		t.Errorf("%d calls, want 3", calls)
	}
}

// Anonymous and shuffled: peers appear as Member A/B, never by name, and
// the two members who see the same peers see them in different orders.
func TestMagiAnonymousShuffledPeers(t *testing.T) {
	t.Parallel()
	fc := NewFakeCouncil(t, known, func(agent string, round int, r providertest.Request) providertest.Reply {
		return MagiReply(answerJSON(map[string]string{"melchior": "A", "balthasar": "B", "casper": "A"}[agent]))
	}, func(c *config.Config) {
		c.Modes.Magi.AnswerType, c.Modes.Magi.Anonymous, c.Modes.Magi.Shuffle = "option", true, true
	})
	if err := fc.Engine.Submit(context.Background(), "Which is larger?\nA) 3\nB) 2"); err != nil {
		t.Fatal(err)
	}
	res := fc.Decided(t)
	if res.Verdict != "A" {
		t.Errorf("verdict %q", res.Verdict)
	}
	orders := map[string]string{}
	for _, a := range []string{"melchior", "balthasar", "casper"} {
		for _, req := range fc.Requests(a) {
			if MagiRoundOf(req.Messages) != 3 {
				continue
			}
			last := req.Messages[len(req.Messages)-1].Content
			for _, name := range []string{"MELCHIOR", "BALTHASAR", "CASPER"} {
				if strings.Contains(last, "["+name+"]") {
					t.Errorf("%s saw %s by name: %s", a, name, last)
				}
			}
			if !strings.Contains(last, "[Member A]") || !strings.Contains(last, "[Member C]") {
				t.Errorf("%s round 3 without Member labels: %s", a, last)
			}
			orders[a] = strings.Join(regexpReasons.FindAllString(last, -1), ",")
		}
	}
	if orders["melchior"] == orders["balthasar"] || orders["balthasar"] == orders["casper"] {
		t.Errorf("round-3 opinions in the same order for different members: %v", orders)
	}
}

func answerJSON(v string) string {
	return fmt.Sprintf(`{"answer": %q, "confidence": 0.7, "reasoning": "because %s", "summary": "s"}`, v, v)
}

var regexpReasons = regexp.MustCompile(`because [AB]`)
