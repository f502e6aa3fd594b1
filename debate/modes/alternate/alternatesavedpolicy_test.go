package alternate

import (
	"context"
	"testing"

	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/debatetest"
)

// A run left waiting at its point after the start (its host never answered)
// and resumed by a door that sets no policy of its own (the console, whose
// modes.alternate.checkpoint is never) goes on under the policy it paused
// under: the host is asked at that point again and between the steps left.
func TestAlternateResumedRunPausesUnderItsSavedPolicy(t *testing.T) {
	t.Parallel()
	gone := &debatetest.ScriptedHost{} // answers nothing: the run ends waiting
	e, log, _ := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "alternate", nil)
	e.SetHost(gone, checkpoint.EachRound)
	e.SetRunAhead(2)
	if err := e.Submit(context.Background(), "write a Go LRU cache"); err == nil {
		t.Fatal("a host that cannot answer: the run went on")
	}
	debatetest.Settle(t, e)
	if p, ok := e.Pending(); !ok || p.Policy != checkpoint.EachRound {
		t.Fatalf("saved point %+v (%v), want one under each_round", p, ok)
	}
	h := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Continue}, {Action: checkpoint.Continue}}}
	e.SetHost(h, "") // the console's: each mode's configured policy (never here)
	e.SetRunAhead(0)
	if err := e.ResumeCheckpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	if len(h.Asked) != 2 || h.Asked[0].Where() != "after the start" || h.Asked[1].Where() != "after step 1 of 2" {
		t.Fatalf("points asked on resume: %+v", h.Asked)
	}
	if n := len(log.All()); n != 4 {
		t.Errorf("%d calls, want 4 (the start's two, steps 1 and 2)", n)
	}
	if got := e.CheckpointPolicy(); got != checkpoint.Never {
		t.Errorf("after the resumed run the policy is %s, want the configuration's never again", got)
	}
}
