package debate_test

import (
	"context"
	"strings"
	"testing"

	. "github.com/parleyhq/parley/debate"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"
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
		Notes: []transcript.Entry{{Kind: transcript.KindNote, Speaker: transcript.SpeakerSystem, Display: "Parley", Text: "skipped: nobody"}},
		Title: question,
		Line:  transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: question},
	}
	for _, a := range agents {
		plan.Turns = append(plan.Turns, PlannedTurn{
			Spec: TurnSpec{Agent: a, Kind: transcript.KindReply, Prompt: question, Answer: true},
			View: Prompt{Mode: "mention", Self: a.Name},
		})
	}
	if err := e.Carry(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	// History lists entries by turn: the turns took their places in the
	// plan's order.
	var kept []string
	for _, en := range e.History().Entries() {
		kept = append(kept, string(en.Kind)+":"+en.Speaker)
	}
	if got, want := strings.Join(kept, " "), "note:system user:user reply:chatgpt reply:gemini"; got != want {
		t.Fatalf("kept %s, want %s", got, want)
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
	if err := e.Carry(context.Background(), Plan{Line: transcript.Entry{Kind: transcript.KindNote, Speaker: transcript.SpeakerUser, Text: "we expect 10k a second"}}); err != nil {
		t.Fatal(err)
	}
	if ens := e.History().Entries(); len(ens) != 1 || ens[0].Kind != transcript.KindNote || e.Info().Title != "" {
		t.Fatalf("kept %+v, title %q", ens, e.Info().Title)
	}
	if calls := log.All(); len(calls) != 0 {
		t.Fatalf("a note called %d agents", len(calls))
	}
}

// A refused plan keeps nothing, calls nobody and does not run the mode's
// Accepted: a question nobody is asked is refused before the notes and the
// title (mention's tests refuse a named agent without its key and an
// unpriced one under a cap through the same step).
func TestCarryRefusesBeforeKeepingAnything(t *testing.T) {
	t.Parallel()
	e, log, _ := NewModeEngine(t, ModeConfig(known), "mention", nil)
	note := []transcript.Entry{{Kind: transcript.KindNote, Speaker: transcript.SpeakerSystem, Display: "Parley", Text: "skipped: nobody"}}
	const question = "which queue?"
	accepted := false
	err := e.Carry(context.Background(), Plan{
		Accepted: func() { accepted = true }, Notes: note, Title: question,
		Line: transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: question},
	})
	if err == nil || accepted {
		t.Fatalf("a question asking nobody: err %v, accepted %v", err, accepted)
	}
	if ens := e.History().Entries(); len(ens) != 0 || e.Info().Title != "" || len(log.All()) != 0 {
		t.Fatalf("a refused plan kept %+v, title %q, %d calls", ens, e.Info().Title, len(log.All()))
	}
}
