package demo

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/parleyhq/parley/providers"
)

func demoAnswerRequest(persona, q string, round int, extra ...providers.Message) providers.Request {
	msgs := append([]providers.Message{{Role: providers.RoleUser, Content: "Round 1 of 3.\n\nThe question:\n\n[Host]: " + q}}, extra...)
	return providers.Request{System: "You are " + persona + ", a member.", Messages: msgs,
		Schema: &providers.Schema{Name: demoAnswerSchema}, Meta: providers.Meta{Mode: "magi", Round: round}}
}

// The demo answers arithmetic from the request's structure: mostly right
// in round 1, with seeded slips; in a later round (providers.Meta.Round) it may join
// an answer both peers agree on.
func TestDemoAnswersArithmeticPlausibly(t *testing.T) {
	t.Parallel()
	right, joined := 0, 0
	for i := range 60 {
		a, b, c, d, e, f := 10+i, 11+i%7, 12+i%5, 13+i%3, 14+i%11, 15+i%13
		q := fmt.Sprintf("What is the result of %d+%d*%d+%d-%d*%d?", a, b, c, d, e, f)
		gold := a + b*c + d - e*f
		var ans struct {
			Answer     string  `json:"answer"`
			Confidence float64 `json:"confidence"`
			Reasoning  string  `json:"reasoning"`
		}
		if err := json.Unmarshal([]byte(Answer(demoAnswerRequest("MELCHIOR-1", q, 1))), &ans); err != nil || ans.Reasoning == "" {
			t.Fatalf("unreadable demo answer: %v", err)
		}
		var n int
		if _, err := fmt.Sscanf(stripCommas(ans.Answer), "%d", &n); err == nil && n == gold {
			right++
		}
		peers := fmt.Sprintf(`[A]: {"answer":"%d"}`+"\n"+`[B]: {"answer":"%d"}`, gold+7, gold+7)
		later := demoAnswerRequest("MELCHIOR-1", q, 2, providers.Message{Role: providers.RoleAssistant, Content: "{}"}, providers.Message{Role: providers.RoleUser, Content: peers})
		if err := json.Unmarshal([]byte(Answer(later)), &ans); err == nil && ans.Answer == fmt.Sprint(gold+7) {
			joined++
		}
	}
	if right < 40 || right == 60 {
		t.Errorf("%d of 60 right in round 1: want mostly right, with some slips", right)
	}
	if joined < 20 || joined == 60 {
		t.Errorf("joined the peers' shared answer %d of 60 times: want often, not always", joined)
	}
}

func stripCommas(s string) string {
	out := []rune{}
	for _, r := range s {
		if r != ',' {
			out = append(out, r)
		}
	}
	return string(out)
}
