package providers

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func collect(t *testing.T, p Provider, req Request) string {
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
	req := Request{System: "You are Gemini, made by Google.", Messages: []Message{{Role: RoleUser, Content: "[Host]: @gemini what is a monad?"}}}
	p := NewDemoWithPace("demo", 0)
	got := collect(t, p, req)
	if got != DemoAnswer(req) || got != collect(t, p, req) {
		t.Fatal("the stream must reassemble to the same answer every time")
	}
	if !strings.Contains(got, "what is a monad?") || !strings.Contains(got, "Gemini") {
		t.Fatalf("answer ignores the question or persona: %q", got)
	}
}

func TestDemoVotesAreValidJSON(t *testing.T) {
	for _, persona := range []string{"You are MELCHIOR-1, the scientist", "You are BALTHASAR-2, the guardian", "You are CASPER-3, the maverick"} {
		for _, q := range []string{"ship on Friday?", "adopt Rust?", "raise prices?"} {
			req := Request{System: persona + ".", Schema: &Schema{Name: "magi_vote"}, Messages: []Message{{Role: RoleUser, Content: "[Host]: " + q}}}
			var v struct{ Vote, Reasoning, Summary string }
			if err := json.Unmarshal([]byte(DemoAnswer(req)), &v); err != nil {
				t.Fatalf("%s / %s: %v", persona, q, err)
			}
			if v.Vote != "approve" && v.Vote != "reject" && v.Vote != "abstain" || v.Reasoning == "" || v.Summary == "" {
				t.Fatalf("bad vote %+v", v)
			}
		}
	}
}

func TestDemoFollowsTheToolProtocol(t *testing.T) {
	sys := "Tools: <list_file><path>DIR</path><recursive>true</recursive></list_file> ..."
	msgs := []Message{{Role: RoleUser, Content: "[Host]: explain this repo"}}
	step1 := DemoAnswer(Request{System: sys, Messages: msgs})
	if !strings.Contains(step1, "<list_file><path>.</path>") {
		t.Fatalf("step 1: %q", step1)
	}
	msgs = append(msgs, Message{Role: RoleAssistant, Content: step1}, Message{Role: RoleUser, Content: "[tool result]: main.go (120 bytes)\nREADME.md (900 bytes)\n"})
	step2 := DemoAnswer(Request{System: sys, Messages: msgs})
	if !strings.Contains(step2, "<read_file><path>README.md</path></read_file>") {
		t.Fatalf("step 2: %q", step2)
	}
	msgs = append(msgs, Message{Role: RoleAssistant, Content: step2}, Message{Role: RoleUser, Content: "[tool result]: # Title\nline\n"})
	step3 := DemoAnswer(Request{System: sys, Messages: msgs})
	if !strings.HasPrefix(step3, "<complete><summary>") || !strings.Contains(step3, "README.md") {
		t.Fatalf("step 3: %q", step3)
	}
}

func TestDemoModeratorOpensSummarisesCloses(t *testing.T) {
	sys := "You are MC. You are the MC of a moderated talk."
	ask := func(last string) string {
		return DemoAnswer(Request{System: sys, Messages: []Message{{Role: RoleUser, Content: last}}})
	}
	if a := ask("[Host]: Open the talk on: remote work"); !strings.Contains(a, "Welcome") || !strings.Contains(a, "remote work") {
		t.Fatalf("open: %q", a)
	}
	if a := ask("Summarise round 1."); !strings.Contains(a, "Round summary") {
		t.Fatalf("summary: %q", a)
	}
	if a := ask("Close the talk."); !strings.Contains(a, "To close") {
		t.Fatalf("close: %q", a)
	}
}

func TestDemoStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s, _ := NewDemoWithPace("demo", 5*time.Millisecond).Stream(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "[Host]: go"}}})
	s.Next()
	cancel()
	for s.Next() {
	}
	if KindOf(s.Err()) != KindCanceled {
		t.Fatalf("want canceled, got %v", s.Err())
	}
}
