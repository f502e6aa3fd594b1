package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// Tabbed (narrow), the shown tab follows the stream until the user picks
// one; a resize to tabs shows a streaming panel, not the first, finished
// one; a picked tab stays through later rounds.
func TestShownTabFollowsStreamUnlessPicked(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	if err := e.SetMode("magi"); err != nil {
		t.Fatal(err)
	}
	m := New(testOptions(e))
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	var ens []transcript.Entry
	for i, p := range m.panels {
		en := transcript.Entry{Turn: i + 1, Kind: transcript.KindVote, Round: 1, Speaker: p.name, Status: transcript.StatusStreaming, Started: fixedNow}
		ens = append(ens, en)
		m.apply(debate.TurnStarted{Entry: en})
	}
	for _, en := range ens[:2] {
		en.Status, en.Text = transcript.StatusComplete, `{"vote":"approve","reasoning":"ok","summary":"ok"}`
		m.apply(debate.TurnFinished{Entry: en})
	}
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 16})
	if m.active != 2 {
		t.Fatalf("after the resize to tabs the shown tab is %d, want 2 (the one streaming)", m.active)
	}
	m.setFocus(focusPanels)
	m.Update(tea.KeyPressMsg{Code: tea.KeyRight})
	if m.active != 0 || !m.tabChosen {
		t.Fatalf("→ shows tab %d (chosen %v), want 0", m.active, m.tabChosen)
	}
	en := ens[2]
	en.Status = transcript.StatusComplete
	m.apply(debate.TurnFinished{Entry: en})
	for i, p := range m.panels {
		m.apply(debate.TurnStarted{Entry: transcript.Entry{Turn: 10 + i, Kind: transcript.KindVote, Round: 2, Speaker: p.name, Status: transcript.StatusStreaming, Started: fixedNow}})
	}
	if m.active != 0 {
		t.Fatalf("round 2 moved the picked tab to %d", m.active)
	}
}
