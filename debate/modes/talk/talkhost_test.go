package talk

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/dialogue"
)

// threeRounds is a talk of three rounds under each_round with host h.
func threeRounds(t *testing.T, h checkpoint.Host) (*debate.Engine, *debatetest.CallLog, *debatetest.EventLog) {
	cfg := debatetest.ModeConfig(known)
	cfg.Modes.Talk.Rounds = 3
	e, log, events := debatetest.NewModeEngine(t, cfg, "talk", nil)
	e.SetHost(h, checkpoint.EachRound)
	return e, log, events
}

func TestTalkNoteAfterASummaryReachesEveryLaterTurnAndSwapSeatsAnotherGuest(t *testing.T) {
	t.Parallel()
	const note = "The audience asks about rural broadband."
	h := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Note, Text: note}, {Action: checkpoint.Swap, Member: "gemini", With: "claude"}}}
	e, log, events := threeRounds(t, h)
	if err := e.Submit(context.Background(), "Is remote work here to stay?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	if len(h.Asked) != 2 || h.Asked[0].Kind != checkpoint.KindSummary || h.Asked[0].Round != 1 || h.Asked[1].Round != 2 || h.Asked[0].Split {
		t.Fatalf("points asked %+v, want after the summaries of rounds 1 and 2 (not the last)", h.Asked)
	}
	if got := h.Asked[0].Members; !slices.Equal(got, []string{"chatgpt", "gemini", "mc"}) || !slices.Equal(h.Asked[0].Agents, []string{"claude", "codex"}) {
		t.Errorf("point 1 seats %v, offers %v", got, h.Asked[0].Agents)
	}
	want := "mc,chatgpt,gemini,mc,chatgpt,gemini,mc,chatgpt,claude,mc,mc"
	if got := strings.Join(log.Order(), ","); got != want {
		t.Fatalf("call order %s\nwant       %s", got, want)
	}
	for i, c := range log.All() {
		has := strings.Contains(debatetest.MagiAllText(c.Req.Messages), note)
		if i < 4 && has || i >= 4 && !has {
			t.Errorf("call %d (%s) has the note: %v", i, c.Agent, has)
		}
	}
	claude := log.All()[8]
	if !strings.Contains(claude.Req.System, "You are Claude") || !strings.Contains(debatetest.MagiAllText(claude.Req.Messages), "Gemini") {
		t.Errorf("claude's first turn lacks its persona or the transcript:\n%s\n%s", claude.Req.System, debatetest.MagiAllText(claude.Req.Messages))
	}
	if got := debatetest.EventsOf[debate.CheckpointAnswered](events); len(got) != 2 || got[1].Sentence != "the host put claude in gemini's seat after round 2's summary" {
		t.Errorf("answers %+v", got)
	}
	if tf := debatetest.LastOf[dialogue.TalkFinished](t, events); tf.Stopped || tf.Rounds != 3 {
		t.Errorf("finished %+v", tf)
	}
}

func TestTalkDropLeavesAGuestOutAndStopEndsWithTheMCsClosing(t *testing.T) {
	t.Parallel()
	h := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Drop, Member: "gemini"}, {Action: checkpoint.Stop}}}
	e, log, events := threeRounds(t, h)
	if err := e.Submit(context.Background(), "Is remote work here to stay?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	if got := strings.Join(log.Order(), ","); got != "mc,chatgpt,gemini,mc,chatgpt,mc,mc" {
		t.Fatalf("call order %s", got)
	}
	// After the drop nobody is told gemini still speaks: the MC's summary
	// and closing (calls 5 and 6) and chatgpt's turn (call 4) name it as
	// dropped; before it (calls 0–3) both guests are named as guests.
	for i, c := range log.All() {
		dropped := strings.Contains(c.Req.System, "the host dropped Gemini")
		if i < 4 && (dropped || !strings.Contains(c.Req.System, "Gemini")) || i >= 4 && !dropped {
			t.Errorf("call %d (%s) system prompt after the drop=%v:\n%s", i, c.Agent, i >= 4, c.Req.System)
		}
		if i >= 4 && strings.Contains(c.Req.System, "the other is Gemini") {
			t.Errorf("call %d (%s) still names Gemini as the other guest", i, c.Agent)
		}
	}
	kept := h.Asked[1].Kept
	if len(kept) != 2 || kept[1].Name != "chatgpt" || !strings.Contains(kept[1].Why, "last guest") {
		t.Errorf("point 2 keeps %+v", kept)
	}
	tf := debatetest.LastOf[dialogue.TalkFinished](t, events)
	if !tf.Stopped || !tf.ByHost || tf.Sentence != "STOPPED by the host after round 2 of 3 · 7 turns" {
		t.Errorf("finished %+v", tf)
	}
}

func TestTalkRefusesDroppingTheMCOrTheLastGuest(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		answers []checkpoint.Answer
		want    string
		calls   string // no closing after a refused answer
	}{
		{[]checkpoint.Answer{{Action: checkpoint.Drop, Member: "mc"}}, "mc is the MC and cannot be dropped", "mc,chatgpt,gemini,mc"},
		{[]checkpoint.Answer{{Action: checkpoint.Drop, Member: "gemini"}, {Action: checkpoint.Drop, Member: "chatgpt"}}, "chatgpt is the last guest", "mc,chatgpt,gemini,mc,chatgpt,mc"},
		{[]checkpoint.Answer{{Action: checkpoint.Swap, Member: "mc", With: "gemini"}}, `"gemini" already sits in this run`, "mc,chatgpt,gemini,mc"},
		{[]checkpoint.Answer{{Action: checkpoint.Swap, Member: "mc", With: "claude"}, {Action: checkpoint.Drop, Member: "claude"}}, "claude is the MC and cannot be dropped", "mc,chatgpt,gemini,mc,chatgpt,gemini,claude"},
	} {
		h := &debatetest.ScriptedHost{Answers: c.answers}
		e, log, _ := threeRounds(t, h)
		err := e.Submit(context.Background(), "Is remote work here to stay?")
		debatetest.Settle(t, e)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.answers, err, c.want)
		}
		if got := strings.Join(log.Order(), ","); got != c.calls {
			t.Errorf("%+v: calls %s, want %s", c.answers, got, c.calls)
		}
	}
}
