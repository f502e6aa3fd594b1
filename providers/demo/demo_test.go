package demo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
)

func collect(t *testing.T, p providers.Provider, req providers.Request) string {
	t.Helper()
	s, err := p.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for s.Next() {
		b.WriteString(s.Delta())
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if u := s.Result().Usage; u.InputTokens == 0 || u.OutputTokens == 0 {
		t.Fatalf("demo reports no usage: %+v", u)
	}
	return b.String()
}

func TestDemoStreamsItsAnswerExactlyAndDeterministically(t *testing.T) {
	t.Parallel()
	req := providers.Request{System: "You are Gemini, made by Google.", Messages: []providers.Message{{Role: providers.RoleUser, Content: "[Host]: @gemini what is a monad?"}}}
	p := NewWithPace("demo", 0)
	got := collect(t, p, req)
	if got != Answer(req) || got != collect(t, p, req) {
		t.Fatal("the stream must reassemble to the same answer every time")
	}
	if !strings.Contains(got, "what is a monad?") || !strings.Contains(got, "Gemini") {
		t.Fatalf("answer ignores the question or persona: %q", got)
	}
}

func TestDemoVotesAreValidJSON(t *testing.T) {
	t.Parallel()
	for _, persona := range []string{"You are MELCHIOR-1, the scientist", "You are BALTHASAR-2, the guardian", "You are CASPER-3, the maverick"} {
		for _, q := range []string{"ship on Friday?", "adopt Rust?", "raise prices?"} {
			req := providers.Request{System: persona + ".", Schema: &providers.Schema{Name: "magi_vote"}, Messages: []providers.Message{{Role: providers.RoleUser, Content: "[Host]: " + q}}}
			var v struct{ Vote, Reasoning, Summary string }
			if err := json.Unmarshal([]byte(Answer(req)), &v); err != nil {
				t.Fatalf("%s / %s: %v", persona, q, err)
			}
			if v.Vote != "approve" && v.Vote != "reject" && v.Vote != "abstain" || v.Reasoning == "" || v.Summary == "" {
				t.Fatalf("bad vote %+v", v)
			}
		}
	}
}

func TestDemoFollowsTheToolProtocol(t *testing.T) {
	t.Parallel()
	sys := "Tools: <list_file><path>DIR</path><recursive>true</recursive></list_file> ..."
	meta := providers.Meta{Mode: "agent", Purpose: providers.PurposeToolStep, Tools: true}
	msgs := []providers.Message{{Role: providers.RoleUser, Content: "[Host]: what does it do"}}
	step1 := Answer(providers.Request{System: sys, Messages: msgs, Meta: meta})
	if !strings.Contains(step1, "<list_file><path>.</path>") {
		t.Fatalf("step 1: %q", step1)
	}
	msgs = append(msgs, providers.Message{Role: providers.RoleAssistant, Content: step1}, providers.Message{Role: providers.RoleUser, Content: "[tool result]: main.go (120 bytes)\nREADME.md (900 bytes)\n"})
	step2 := Answer(providers.Request{System: sys, Messages: msgs, Meta: meta})
	if !strings.Contains(step2, "<read_file><path>README.md</path></read_file>") {
		t.Fatalf("step 2: %q", step2)
	}
	msgs = append(msgs, providers.Message{Role: providers.RoleAssistant, Content: step2}, providers.Message{Role: providers.RoleUser, Content: "[tool result]: # Title\nline\n"})
	step3 := Answer(providers.Request{System: sys, Messages: msgs, Meta: meta})
	if !strings.HasPrefix(step3, "<complete><summary>") || !strings.Contains(step3, "README.md") {
		t.Fatalf("step 3: %q", step3)
	}
}

func TestDemoModeratorOpensSummarisesCloses(t *testing.T) {
	t.Parallel()
	// The same words in every request: only providers.Meta says what to do.
	msgs := []providers.Message{{Role: providers.RoleUser, Content: "[Host]: remote work"}}
	ask := func(purpose string, round int) string {
		return Answer(providers.Request{Messages: msgs, Meta: providers.Meta{Mode: "talk", Purpose: purpose, Round: round, Rounds: 3, Agent: "MC"}})
	}
	if a := ask(providers.PurposeOpen, 0); !strings.Contains(a, "Welcome") || !strings.Contains(a, "remote work") {
		t.Fatalf("open: %q", a)
	}
	if a := ask(providers.PurposeSummary, 1); !strings.Contains(a, "Round 1 of 3 summary") {
		t.Fatalf("summary: %q", a)
	}
	if a := ask(providers.PurposeClose, 4); !strings.Contains(a, "To close") {
		t.Fatalf("close: %q", a)
	}
	if a := ask(providers.PurposeReply, 1); strings.Contains(a, "Welcome") || strings.Contains(a, "To close") {
		t.Fatalf("a guest's reply is not a moderator's: %q", a)
	}
}

func TestDemoToolsOnlyWhenTheRequestEnablesThem(t *testing.T) {
	t.Parallel()
	msgs := []providers.Message{{Role: providers.RoleUser, Content: "[Host]: read the file main.go"}}
	if a := Answer(providers.Request{Messages: msgs, Meta: providers.Meta{Mode: "mention"}}); strings.Contains(a, "<list_file>") {
		t.Fatalf("no tool protocol without providers.Meta.Tools: %q", a)
	}
	if a := Answer(providers.Request{Messages: msgs, Meta: providers.Meta{Mode: "mention", Tools: true}}); !strings.Contains(a, "<list_file>") {
		t.Fatalf("a tool-enabled agent asked about a file lists the workspace: %q", a)
	}
}

func TestDemoVoteChangesOnlyInLaterRounds(t *testing.T) {
	t.Parallel()
	shown := `[MELCHIOR]: {"vote": "reject"}\n[CASPER]: {"vote": "reject"}`
	vote := func(round int) string {
		req := providers.Request{System: "You are BALTHASAR-2, the guardian.", Schema: &providers.Schema{Name: "magi_vote"},
			Messages: []providers.Message{{Role: providers.RoleUser, Content: "[Host]: adopt Rust?\n" + shown}}, Meta: providers.Meta{Mode: "magi", Purpose: providers.PurposeVote, Round: round, Rounds: 3}}
		var v struct{ Vote, Reasoning string }
		if err := json.Unmarshal([]byte(Answer(req)), &v); err != nil {
			t.Fatal(err)
		}
		return v.Reasoning
	}
	if strings.Contains(vote(1), "I now side with") {
		t.Fatal("round 1 has no one to side with")
	}
}

func TestDemoFillsOtherSchemasWithARanking(t *testing.T) {
	t.Parallel()
	schema := &providers.Schema{Name: "council_ranking", JSON: map[string]any{
		"type": "object", "required": []any{"ranking", "reason"},
		"properties": map[string]any{
			"ranking": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"A", "B", "C"}}},
			"reason":  map[string]any{"type": "string"},
		},
	}}
	var got struct {
		Ranking []string
		Reason  string
	}
	if err := json.Unmarshal([]byte(Answer(providers.Request{Schema: schema, Messages: []providers.Message{{Role: providers.RoleUser, Content: "[Host]: rank"}}})), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Ranking) != 3 || got.Reason == "" {
		t.Fatalf("ranking = %+v", got)
	}
}

func TestDemoStopsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	s, _ := NewWithPace("demo", 5*time.Millisecond).Stream(ctx, providers.Request{Messages: []providers.Message{{Role: providers.RoleUser, Content: "[Host]: go"}}})
	s.Next()
	cancel()
	for s.Next() {
	}
	if providers.KindOf(s.Err()) != providers.KindCanceled {
		t.Fatalf("want canceled, got %v", s.Err())
	}
}

// A demo answer uses the question's words: each persona names what was
// asked about, so a demo of "compare Kafka and NATS" talks about both.
func TestDemoAnswerUsesTheQuestionsWords(t *testing.T) {
	t.Parallel()
	msgs := []providers.Message{{Role: providers.RoleUser, Content: "[Host]: @all compare Kafka and NATS for a small team"}}
	seen := map[string]bool{}
	for _, sys := range []string{"You are Claude.", "You are MELCHIOR-1, the scientist.", "You are BALTHASAR-2, the guardian.", "You are CASPER-3, the maverick.", "You are Codex, a coding agent."} {
		a := Answer(providers.Request{System: sys, Messages: msgs, Meta: providers.Meta{Mode: "mention"}})
		body := a[strings.Index(a, "\n"):] // past the header that quotes the question
		if !strings.Contains(body, "Kafka") || !strings.Contains(body, "NATS") {
			t.Errorf("%s: the points do not name Kafka and NATS:\n%s", sys, a)
		}
		seen[body] = true
	}
	if len(seen) < 4 {
		t.Errorf("personas answer alike: %d distinct answers of 5", len(seen))
	}
	if got := salientWords("compare Kafka and NATS for a small team"); strings.Join(got, " ") != "Kafka NATS team" {
		t.Errorf("salient words = %v", got)
	}
}

// The question's words are the user's: control characters, escapes and
// bidi overrides never reach an answer.
func TestDemoAnswerDropsControlCharacters(t *testing.T) {
	t.Parallel()
	q := "[Host]: compare \x1b[31mRedis\x07 and \u202eMemcached\x00 please"
	a := Answer(providers.Request{System: "You are Claude.", Messages: []providers.Message{{Role: providers.RoleUser, Content: q}}})
	if strings.ContainsAny(a, "\x1b\x07\x00\u202e") {
		t.Fatalf("control characters echoed: %q", a)
	}
	if !strings.Contains(a, "Redis") || !strings.Contains(a, "Memcached") {
		t.Fatalf("the words themselves are kept: %q", a)
	}
}

// Earlier turns (another mode's replies, another agent's words before the
// host's) are not tool calls: the loop for a new question lists first.
func TestDemoToolLoopIgnoresEarlierTurns(t *testing.T) {
	t.Parallel()
	meta := providers.Meta{Mode: "agent", Purpose: providers.PurposeToolStep, Tools: true}
	msgs := []providers.Message{
		{Role: providers.RoleUser, Content: "[Host]: @all hello"},
		{Role: providers.RoleAssistant, Content: "Hello there."},
		{Role: providers.RoleUser, Content: "[Plain]: hi\n\n[Host]: what does this code do?"},
	}
	step1 := Answer(providers.Request{Messages: msgs, Meta: meta})
	if !strings.Contains(step1, "<list_file>") {
		t.Fatalf("step 1 must list: %q", step1)
	}
	msgs = append(msgs, providers.Message{Role: providers.RoleAssistant, Content: step1},
		providers.Message{Role: providers.RoleUser, Content: "[tool result]: list_file . (recursive): 3 entries\ncmd/\ncmd/tool.go (40 bytes)\nqueue.go (90 bytes)"})
	step2 := Answer(providers.Request{Messages: msgs, Meta: meta})
	if !strings.Contains(step2, "<read_file><path>cmd/tool.go</path></read_file>") {
		t.Fatalf("step 2 must read a listed Go file: %q", step2)
	}
}
