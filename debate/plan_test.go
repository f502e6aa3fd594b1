package debate_test

import (
	"context"
	"strings"
	"testing"

	. "github.com/parleyhq/parley/debate"
	. "github.com/parleyhq/parley/debate/debatetest"
)

// Carry keeps a plan's notes, then its line, then every turn in the plan's
// order; every prompt is built before any turn runs, so no agent of the
// round sees another's answer; the results come back in the plan's order.
func TestCarryKeepsThePlansOrderAndBuildsEveryPromptFirst(t *testing.T) {
	t.Parallel()
	e, log, _ := NewModeEngine(t, ModeConfig(known), "mention", nil)
	agents, err := e.MustAgents("chatgpt", "gemini")
	if err != nil {
		t.Fatal(err)
	}
	const question = "which queue for 10k messages a second?"
	plan := Plan{
		Notes: []Entry{{Kind: KindNote, Speaker: SpeakerSystem, Display: "Parley", Text: "skipped: nobody"}},
		Title: question,
		Line:  Entry{Kind: KindUser, Speaker: SpeakerUser, Text: question},
	}
	for _, a := range agents {
		plan.Turns = append(plan.Turns, PlannedTurn{
			Spec: TurnSpec{Agent: a, Kind: KindReply, Prompt: question, Answer: true},
			View: Prompt{Mode: "mention", Self: a.Name},
		})
	}
	results := e.Carry(context.Background(), plan)
	if len(results) != 2 || results[0].Entry.Speaker != "chatgpt" || results[1].Entry.Speaker != "gemini" {
		t.Fatalf("results %+v, want chatgpt then gemini", results)
	}
	var kept []string
	for _, en := range e.History().Entries() {
		kept = append(kept, string(en.Kind)+":"+en.Speaker)
	}
	if got, want := strings.Join(kept, " "), "note:system user:user reply:chatgpt reply:gemini"; got != want {
		t.Fatalf("kept %s, want %s", got, want)
	}
	if results[0].Entry.Turn >= results[1].Entry.Turn {
		t.Fatalf("turns %d, %d: they take their places in the plan's order", results[0].Entry.Turn, results[1].Entry.Turn)
	}
	if e.Info().Title == "" {
		t.Fatal("the plan's title was not given")
	}
	for _, c := range log.All() {
		all := AllContent(c.Req)
		if strings.Contains(all, "answer") {
			t.Fatalf("%s was sent an answer of its own round:\n%s", c.Agent, all)
		}
		if !strings.Contains(LastContent(c.Req), question) {
			t.Fatalf("%s was not asked the question:\n%s", c.Agent, all)
		}
	}
}

// A plan without turns keeps its line and calls nobody (mention's note).
func TestCarryWithoutTurnsKeepsTheLineAlone(t *testing.T) {
	t.Parallel()
	e, log, _ := NewModeEngine(t, ModeConfig(known), "mention", nil)
	if r := e.Carry(context.Background(), Plan{Line: Entry{Kind: KindNote, Speaker: SpeakerUser, Text: "we expect 10k a second"}}); len(r) != 0 {
		t.Fatalf("results %+v", r)
	}
	if ens := e.History().Entries(); len(ens) != 1 || ens[0].Kind != KindNote || e.Info().Title != "" {
		t.Fatalf("kept %+v, title %q", ens, e.Info().Title)
	}
	if calls := log.All(); len(calls) != 0 {
		t.Fatalf("a note called %d agents", len(calls))
	}
}
