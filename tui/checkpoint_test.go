package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/transcript"
)

// A MAGI council under each_round waits after round 1: the rule above the
// input is the checkpoint bar with the choices and their keys, the status
// says what happened and the panels stay. A line the checkpoint does not
// take stays with the reason; the note typed reaches the transcript as the
// host's words; stop after round 2 ends the council and the verdict line
// says so.
func TestConsoleCheckpointBar(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	e.Config.Modes.Magi.Checkpoint = "each_round"
	if err := e.SetMode(debate.ModeMagi); err != nil {
		t.Fatal(err)
	}
	m := New(testOptions(e))
	tm := start(t, m, 100, 30)
	typeLine(tm, "Should we ship on Friday?")
	waitFor(t, tm, "the checkpoint after round 1", func(m *Model) bool { return m.waiting != nil && m.waiting.Round == 1 })
	s := snapshot(t, tm)
	for _, want := range []string{"⏸ Enter: continue · a line: a note · drop NAME (melchior, balthasar, casper) · stop · swap NAME AG",
		"CHECKPOINT after round 1 of 3: ", "MELCHIOR", "BALTHASAR", "CASPER"} {
		if !strings.Contains(flatten(s), want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	typeLine(tm, "drop nobody")
	waitFor(t, tm, "the refusal", func(m *Model) bool { return strings.Contains(m.status, `no member "nobody"`) && m.waiting != nil })
	probe(t, tm, func(m *Model) { m.in.Take() })
	typeLine(tm, "The budget was cut by half.")
	waitFor(t, tm, "the checkpoint after round 2", func(m *Model) bool { return m.waiting != nil && m.waiting.Round == 2 })
	var note bool
	probe(t, tm, func(m *Model) {
		for _, en := range m.engine.History().Entries() {
			note = note || en.Kind == transcript.KindUser && en.Text == "The budget was cut by half."
		}
	})
	if !note {
		t.Error("the note is not saved as the host's words")
	}
	typeLine(tm, "stop")
	waitFor(t, tm, "the stopped council", func(m *Model) bool {
		return idle(m) && m.waiting == nil && strings.HasPrefix(m.verdict, "STOPPED by the host after round 2: ")
	})
	if s := snapshot(t, tm); strings.Contains(s, "⏸") {
		t.Errorf("the bar stays after the council:\n%s", s)
	}
}

// A session resumed while its council waits at a checkpoint (its process
// ended there) opens with the bar: the console goes on from the point.
func TestConsoleResumesAtTheCheckpoint(t *testing.T) {
	t.Parallel()
	before := testEngine(t, 0)
	before.Config.Modes.Magi.Checkpoint = "each_round"
	if err := before.SetMode(debate.ModeMagi); err != nil {
		t.Fatal(err)
	}
	before.SetHost(checkpoint.HostFunc(func(context.Context, checkpoint.Point) (checkpoint.Answer, error) {
		return checkpoint.Answer{}, errors.New("the process ended") // nobody answers here
	}), "")
	if err := before.Submit(context.Background(), "Should we ship on Friday?"); err == nil {
		t.Fatal("the council went on without its host")
	}
	if _, waiting := before.Pending(); !waiting {
		t.Fatal("no checkpoint saved")
	}
	e := testEngine(t, 0)
	e.Config.Modes.Magi.Checkpoint = "each_round"
	if err := e.Restore(before.Info(), before.History().Entries()); err != nil {
		t.Fatal(err)
	}
	m := New(testOptions(e))
	tm := start(t, m, 100, 30)
	waitFor(t, tm, "the checkpoint after round 1, resumed", func(m *Model) bool { return m.waiting != nil && m.waiting.Round == 1 })
	typeLine(tm, "stop")
	waitFor(t, tm, "the stopped council", func(m *Model) bool {
		return idle(m) && strings.HasPrefix(m.verdict, "STOPPED by the host after round 1: ")
	})
}
