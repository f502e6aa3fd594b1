package alternate

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/transcript"
)

// A swap after the start seats another agent in the seat whose turn is
// next: it answers step 1, the agent it replaced is asked no more; the
// point offers no drop and keeps both seats; with nothing ahead no point
// is offered; stop ends the run with the outcome saying how many steps
// were not run.
func TestAlternateSwapAndStopBetweenSteps(t *testing.T) {
	t.Parallel()
	h := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Swap, Member: "codex", With: "gemini"}, {Action: checkpoint.Stop}}}
	e, log, events := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "alternate", nil)
	e.SetHost(h, checkpoint.EachRound)
	e.SetRunAhead(3)
	if err := e.Submit(context.Background(), "write a Go LRU cache"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	e.SetRunAhead(2)
	if err := e.Submit(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	if !e.StoppedByHost() {
		t.Error("the host's stop did not end the run")
	}
	if got := strings.Join(log.Order(), ","); got != "codex,claude,gemini" {
		t.Fatalf("call order %s, want the start's two then gemini in codex's seat", got)
	}
	if len(h.Asked) != 2 || h.Asked[0].Where() != "after the start" || h.Asked[1].Where() != "after step 1 of 3" {
		t.Fatalf("points %+v", h.Asked)
	}
	p := h.Asked[0]
	if slices.Contains(p.Choices, checkpoint.Drop) || !slices.Contains(p.Choices, checkpoint.Swap) || len(p.Kept) != 2 {
		t.Errorf("the point offers %v, keeps %+v", p.Choices, p.Kept)
	}
	if err := (checkpoint.Answer{Action: checkpoint.Drop, Member: "claude"}).Check(p); err == nil || !strings.Contains(err.Error(), "both seats are needed") {
		t.Errorf("a drop: %v", err)
	}
	var outcome string
	for en := range e.History().Walk() {
		if en.Kind == transcript.KindOutcome {
			outcome = en.Text
			break
		}
	}
	if outcome != "STOPPED by the host after step 1 of 3 · 2 steps not run" {
		t.Errorf("outcome %q", outcome)
	}
	if got := debatetest.EventsOf[dialogue.AlternateStepFinished](events); len(got) != 2 {
		t.Errorf("%d steps announced, want the start and step 1", len(got))
	}

	e.SetRunAhead(0) // nothing follows: no point
	if err := e.Submit(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	if len(h.Asked) != 2 {
		t.Errorf("a point with nothing ahead: %+v", h.Asked[2:])
	}
}

// The outcome of a stopped run, worded once.
func TestAlternateStoppedSentence(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		step, left int
		want       string
	}{
		{0, 3, "STOPPED by the host after the start · 3 steps not run"},
		{2, 1, "STOPPED by the host after step 2 of 3 · 1 step not run"},
		{4, 0, "STOPPED by the host after step 4 of 4"},
	} {
		if got := dialogue.AlternateStoppedSentence(c.step, c.left); got != c.want {
			t.Errorf("(%d, %d): %q, want %q", c.step, c.left, got, c.want)
		}
	}
}

// FuzzSavedRun: whatever a database holds as a run's resume state, it is
// refused or it fits: steps to come in range, two different seats.
func FuzzSavedRun(f *testing.F) {
	f.Add(`{"ahead":2,"seats":["codex","claude"]}`, 1)
	f.Add(`{"ahead":-1,"seats":["a","a"]}`, -1)
	f.Fuzz(func(t *testing.T, raw string, round int) {
		var s savedRun
		if json.Unmarshal([]byte(raw), &s) != nil {
			return
		}
		if s.check(checkpoint.Point{Kind: checkpoint.KindStep, Round: round}) != nil {
			return
		}
		if s.Ahead < 1 || s.Ahead > config.MaxSteps || round < 0 || round > config.MaxSteps || s.Seats[0] == "" || s.Seats[1] == "" || s.Seats[0] == s.Seats[1] {
			t.Fatalf("accepted %+v at step %d", s, round)
		}
	})
}
