package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Seen at 60×16: at the end of a council the chairman's panel showed one
// line of its answer ("real models)") under "↑ 11 more", and ↑ moved it a
// line at a time. With the keys, the panels take the transcript's and the
// ranking table's room; g shows the answer's first line, G its last, and
// the table is back once the panels let the keys go.
func TestFocusedPanelShowsTheChairmanFromStartToEnd(t *testing.T) {
	t.Parallel()
	m := New(testOptions(testEngine(t, 0)))
	tm := start(t, m, 60, 16)
	tm.Send(altKey('6'))
	waitFor(t, tm, "council mode", func(m *Model) bool { return m.engine.Current().Name() == "council" })
	typeLine(tm, "compare Kafka and NATS for a small team")
	waitFor(t, tm, "the council to end", func(m *Model) bool { return idle(m) && m.council.stage3 != nil })
	var first, last string
	rowsBefore := 0
	probe(t, tm, func(m *Model) {
		p := m.panels[3]
		lines := p.answer.Lines(m.md, p.width-4)
		first, last = strings.TrimSpace(ansi.Strip(lines[0])), strings.TrimSpace(ansi.Strip(lines[len(lines)-1]))
		rowsBefore = m.lay.panelsH
		if m.lay.tableH == 0 {
			t.Errorf("no ranking table before the panels have the keys:\n%s", screen(m))
		}
	})
	tm.Send(keyMsg(tea.KeyTab))
	tm.Send(keyMsg(tea.KeyTab))
	active := 0
	probe(t, tm, func(m *Model) { active = m.active })
	for range (3 - active + 4) % 4 {
		tm.Send(keyMsg(tea.KeyRight)) // to the chairman
	}
	tm.Send(tea.KeyPressMsg{Code: 'g', Text: "g"})
	probe(t, tm, func(m *Model) {
		s := screen(m)
		if m.active != 3 || !strings.Contains(s, "┃ "+first) {
			t.Errorf("g: the chairman's first line %q is not shown:\n%s", first, s)
		}
		if m.lay.panelsH < rowsBefore+3 || m.lay.transcriptH != 1 {
			t.Errorf("focused panels %d rows (were %d), transcript %d rows:\n%s", m.lay.panelsH, rowsBefore, m.lay.transcriptH, s)
		}
		if m.in.Value() != "" {
			t.Errorf("g was typed into the input: %q", m.in.Value())
		}
	})
	tm.Send(tea.KeyPressMsg{Code: 'G', Text: "G"})
	probe(t, tm, func(m *Model) {
		if s := screen(m); !strings.Contains(s, "┃ "+last) || strings.Contains(s, "┃ "+first) {
			t.Errorf("G: want the last line %q and not the first:\n%s", last, s)
		}
	})
	tm.Send(keyMsg(tea.KeyTab)) // the input
	probe(t, tm, func(m *Model) {
		if m.lay.panelsH != rowsBefore || m.lay.tableH == 0 {
			t.Errorf("the panels keep %d rows (were %d), table %d rows, once the keys left:\n%s", m.lay.panelsH, rowsBefore, m.lay.tableH, screen(m))
		}
	})
}

// A click on a line of the transcript selects the turn drawn there.
func TestClickSelectsTheTurnUnderThePointer(t *testing.T) {
	t.Parallel()
	m := New(testOptions(testEngine(t, 0)))
	tm := start(t, m, 100, 30)
	typeLine(tm, "@gemini hello")
	waitFor(t, tm, "the answer", func(m *Model) bool { return idle(m) && m.tr.Len() == 2 })
	var y int
	probe(t, tm, func(m *Model) {
		m.View()
		for row, l := range m.tr.View() {
			if strings.Contains(ansi.Strip(l), "@gemini hello") {
				y = m.lay.transcriptY + row
			}
		}
	})
	if y == 0 {
		t.Fatal("the question is not on screen")
	}
	tm.Send(tea.MouseClickMsg{X: 10, Y: y, Button: tea.MouseLeft})
	probe(t, tm, func(m *Model) {
		en, ok := m.tr.Selected()
		if m.focus != focusTranscript || !ok || en.Turn != 1 {
			t.Errorf("after the click: focus %v, selected turn %d (%v), want the transcript and turn 1", m.focus, en.Turn, ok)
		}
	})
	tm.Send(tea.MouseClickMsg{X: 10, Y: y + 2, Button: tea.MouseLeft}) // Gemini's answer
	probe(t, tm, func(m *Model) {
		if en, _ := m.tr.Selected(); en.Turn != 2 {
			t.Errorf("the second click selected turn %d, want 2:\n%s", en.Turn, screen(m))
		}
	})
}
