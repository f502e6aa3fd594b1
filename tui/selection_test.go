package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// historyEngine is a demo engine holding n finished turns: a user line
// then an answer, in turn.
func historyEngine(tb testing.TB, n int) *debate.Engine {
	tb.Helper()
	var entries []transcript.Entry
	for i := 1; i <= n; i++ {
		en := transcript.Entry{Turn: i, Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: fmt.Sprintf("@all question %d", i), Status: transcript.StatusComplete, Mode: "mention"}
		if i%2 == 0 {
			en.Kind, en.Speaker, en.Text = transcript.KindReply, "chatgpt", fmt.Sprintf("Answer %d, about queues.", i)
		}
		entries = append(entries, en)
	}
	return restoredEngine(tb, entries)
}

// restoredEngine is a demo engine holding entries, as a resumed session.
func restoredEngine(tb testing.TB, entries []transcript.Entry) *debate.Engine {
	tb.Helper()
	e := testEngine(tb, 0)
	if err := e.Restore(debate.SessionInfo{ID: "5e55101d0000", Mode: "mention", Created: fixedNow}, entries); err != nil {
		tb.Fatal(err)
	}
	return e
}

func selectedTurn(m *Model) int {
	en, ok := m.tr.Selected()
	if !ok {
		return 0
	}
	return en.Turn
}

// Seen at 100×30: turn 18 selected, a question asked from the input, Tab
// back to the transcript (which shows the latest), ↑ went to turn 17. The
// line sent shows the latest turns, so ↑ moves from the newest.
func TestUpAfterAskingMovesFromTheLatestTurn(t *testing.T) {
	t.Parallel()
	m := New(testOptions(historyEngine(t, 23)))
	tm := start(t, m, 100, 30)
	tm.Send(keyMsg(tea.KeyTab))
	tm.Send(keyMsg('g'))
	for range 17 {
		tm.Send(keyMsg(tea.KeyDown))
	}
	waitFor(t, tm, "turn 18 selected", func(m *Model) bool { return selectedTurn(m) == 18 })
	tm.Send(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	typeLine(tm, "@all second question about queues")
	waitFor(t, tm, "both answers", func(m *Model) bool { return idle(m) && m.tr.Len() == 26 })
	tm.Send(keyMsg(tea.KeyTab))
	tm.Send(keyMsg(tea.KeyUp))
	waitFor(t, tm, "turn 25 selected", func(m *Model) bool { return selectedTurn(m) == 25 })
	if s := snapshot(t, tm); !strings.Contains(s, "turn 25/26 selected") {
		t.Errorf("the rule does not say an older turn is selected:\n%s", s)
	}
}

// Turns arriving while one is selected leave the selection where it is,
// and the rule says it is not the newest.
func TestNewTurnsNeverStealTheSelection(t *testing.T) {
	t.Parallel()
	e := historyEngine(t, 23)
	m := New(testOptions(e))
	tm := start(t, m, 100, 30)
	tm.Send(keyMsg(tea.KeyTab))
	tm.Send(keyMsg(tea.KeyUp)) // turn 22
	waitFor(t, tm, "turn 22 selected", func(m *Model) bool { return selectedTurn(m) == 22 })
	if err := e.Submit(context.Background(), "@all a question from elsewhere"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tm, "the answers", func(m *Model) bool { return idle(m) && m.tr.Len() == 26 })
	probe(t, tm, func(m *Model) {
		if got := selectedTurn(m); got != 22 {
			t.Errorf("selected turn %d, want 22", got)
		}
		if s := screen(m); !strings.Contains(s, "turn 22/26 selected") {
			t.Errorf("the rule does not say an older turn is selected:\n%s", s)
		}
	})
}
