package debate_test

import (
	"context"
	"testing"

	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/dialogue"
)

// A step cancelled before the responder said anything does not pass the
// turn: the same agent answers the next step.
func TestAlternateCancelBeforeAnyTextKeepsTheTurn(t *testing.T) {
	t.Parallel()
	e, log, _ := NewModeEngine(t, ModeConfig(known), "alternate", nil)
	if err := e.Submit(context.Background(), "design a cache"); err != nil {
		t.Fatal(err)
	}
	if got := e.State(dialogue.StateStepNext); got != "codex" {
		t.Fatalf("after the start next = %q", got)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.Submit(cancelled, ""); err == nil {
		t.Fatal("want the cancel")
	}
	if got := e.State(dialogue.StateStepNext); got != "codex" {
		t.Fatalf("codex said nothing, yet next = %q", got)
	}
	if err := e.Submit(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if order := log.Order(); order[len(order)-1] != "codex" {
		t.Fatalf("calls %v: the step after the cancel should ask codex", order)
	}
}

// A start turn cancelled before anyone answered leaves the session
// unstarted: the next line is again an instruction both agents answer.
func TestAlternateStartCancelledBeforeAnyTextStaysUnstarted(t *testing.T) {
	t.Parallel()
	e, log, _ := NewModeEngine(t, ModeConfig(known), "alternate", nil)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.Submit(cancelled, "design a cache"); err == nil {
		t.Fatal("want the cancel")
	}
	if next := e.State(dialogue.StateStepNext); next != "" {
		t.Fatalf("nobody answered, yet the start turn counts as done (next = %q)", next)
	}
	if err := e.Submit(context.Background(), "design a cache"); err != nil {
		t.Fatal(err)
	}
	if order := log.Order(); len(order) < 2 || order[len(order)-2] != "codex" || order[len(order)-1] != "claude" {
		t.Fatalf("calls %v: the start should run whole", order)
	}
}
