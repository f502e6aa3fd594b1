package tui

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
)

// A council under each_round waits in the console after the answers and
// after the rankings with the same bar as MAGI's (the console knows no
// mode): the chairman cannot be dropped (the reason stays in the status),
// a note is saved as the host's words, and a stop after the rankings ends
// the council without the chairman, its outcome shown without a failure.
func TestConsoleCouncilCheckpointBar(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	e.Config.Modes.Council.Checkpoint = "each_round"
	if err := e.SetMode(debate.ModeCouncil); err != nil {
		t.Fatal(err)
	}
	m := New(testOptions(e))
	tm := start(t, m, 100, 30)
	typeLine(tm, "Kafka or NATS?")
	waitFor(t, tm, "the checkpoint after the answers", func(m *Model) bool { return m.waiting != nil && m.waiting.Kind == checkpoint.KindAnswers })
	s := flatten(snapshot(t, tm))
	for _, want := range []string{"⏸ Enter: continue · a line: a note · drop NAME (", "CHECKPOINT after the answers: 3 of 3 members answered"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	typeLine(tm, "drop chairman")
	waitFor(t, tm, "the refusal", func(m *Model) bool {
		return strings.Contains(m.status, "the chairman cannot be dropped") && m.waiting != nil
	})
	probe(t, tm, func(m *Model) { m.in.Take() })
	typeLine(tm, "We are a team of three.")
	waitFor(t, tm, "the checkpoint after the rankings", func(m *Model) bool { return m.waiting != nil && m.waiting.Kind == checkpoint.KindRankings })
	typeLine(tm, "stop")
	waitFor(t, tm, "the stopped council", func(m *Model) bool {
		return idle(m) && m.waiting == nil && strings.HasPrefix(m.council.outcome, "STOPPED by the host after the rankings: ")
	})
	var note, chair bool
	probe(t, tm, func(m *Model) {
		for _, en := range m.engine.History().Entries() {
			note = note || en.Kind == transcript.KindUser && en.Text == "We are a team of three."
			chair = chair || en.Round == 3 && en.Kind == transcript.KindReply
		}
	})
	if !note || chair {
		t.Errorf("the note saved %v, a chairman's turn %v", note, chair)
	}
}

// The host's note at a checkpoint is said inside the council: the ranking
// table stays; a new question clears it.
func TestHostNoteKeepsTheCouncilTable(t *testing.T) {
	t.Parallel()
	m := New(testOptions(testEngine(t, 0)))
	m.council.ranked = []verdict.CouncilScore{{Member: "gemini"}}
	m.applyEvent(debate.EntryAdded{Entry: transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Round: 2, Text: "Prefer managed."}})
	if len(m.council.ranked) != 1 {
		t.Fatal("the host's note cleared the ranking table")
	}
	m.applyEvent(debate.EntryAdded{Entry: transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: "Next question?"}})
	if len(m.council.ranked) != 0 {
		t.Error("a new question kept the last council's table")
	}
}
