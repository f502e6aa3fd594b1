package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers/providertest"
)

// A long finished answer at the end of the history: the first frame
// renders only the blocks on screen, in the panel and in the transcript,
// and shows exactly the lines a whole render would show there.
func TestLongAnswerRendersOnlyItsEnd(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	a, _ := e.Agent("gemini")
	e.AddEntry(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: "@gemini explain", Started: fixedNow})
	text := strings.Join(providertest.SplitWords(longAnswer("gemini", 3000))[:3000], "")
	e.AddEntry(transcript.Entry{Kind: transcript.KindReply, Speaker: a.Name, Display: a.Label(), Model: a.Model, Text: text,
		Status: transcript.StatusComplete, Started: fixedNow, Finished: fixedNow.Add(time.Second)})
	m := New(testOptions(e))
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.View()
	answer := m.tr.answers[2]
	if answer == nil || answer.from == 0 || len(answer.blocks) < 20 {
		t.Fatalf("the transcript rendered blocks %d… of %d, want only the last few", answer.from, len(answer.blocks))
	}
	if p := m.byName[a.Name]; p.answer.final.from == 0 {
		t.Fatalf("the panel rendered all %d blocks of the answer", len(p.answer.final.blocks))
	}
	following := m.tr.View()
	m.tr.follow = false
	m.tr.top, m.tr.topRow = m.tr.anchorEndingAt(len(m.tr.entries) - 1) // renders the whole entry
	if whole := m.tr.View(); !slices.Equal(following, whole) {
		t.Fatalf("the lazy end differs from the whole render's end:\n%s\n---\n%s", strings.Join(following, "\n"), strings.Join(whole, "\n"))
	}
	if answer.from != 0 {
		t.Fatal("scrolling back did not render the rest of the answer")
	}
}

// A delta of a turn that is nowhere on screen (no panel shown, its
// transcript entry above the view) updates the state and draws no frame;
// one of a turn on screen does.
func TestDeltaOffScreenDrawsNoFrame(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	m := New(testOptions(e))
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24}) // narrow: the panels are tabs
	for i, name := range []string{"gemini", "claude", "chatgpt"} {
		a, _ := e.Agent(name)
		m.apply(debate.TurnStarted{Entry: transcript.Entry{Turn: i + 1, Kind: transcript.KindReply, Speaker: name, Display: a.Label(), Model: a.Model, Status: transcript.StatusStreaming, Started: fixedNow}})
	}
	m.apply(debate.TextDelta{Turn: 2, Agent: "claude", Text: "Streaming"}) // thinking → streaming shows
	m.apply(debate.TextDelta{Turn: 3, Agent: "chatgpt", Text: strings.Repeat("a long answer fills the transcript. ", 60)})
	before := m.View().Content
	if m.stale {
		t.Fatal("a drawn frame is still marked stale")
	}
	m.apply(debate.TextDelta{Turn: 2, Agent: "claude", Text: " off screen"})
	if m.stale || m.View().Content != before {
		t.Fatal("a delta of a turn nowhere on screen drew a frame")
	}
	if en, _ := m.tr.Entry(2); !strings.HasSuffix(en.Text, " off screen") {
		t.Fatalf("the hidden turn's text was not kept: %q", en.Text)
	}
	m.apply(debate.TextDelta{Turn: 3, Agent: "chatgpt", Text: " more"})
	if !m.stale {
		t.Fatal("a delta of the turn at the bottom of the transcript drew no frame")
	}
}
