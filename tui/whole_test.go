package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// A message longer than the status line wraps above the totals, whole:
// the list of known agents and alternate's start rule are read to the end.
func TestLongMessagesAreReadWhole(t *testing.T) {
	for _, size := range [][2]int{{60, 16}, {100, 30}} {
		e := testEngine(t, 0)
		m := New(testOptions(e))
		tm := start(t, m, size[0], size[1])
		typeLine(tm, "@bob hi")
		waitFor(t, tm, "the refusal", func(m *Model) bool { return m.statusErr })
		s := flatten(snapshot(t, tm))
		if !strings.Contains(s, "unknown agent @bob (known: @gemini, @chatgpt, @claude, @codex, @local, @mc, @melchior, @balthasar, @casper)") {
			t.Errorf("%dx%d: the known agents are not all shown:\n%s", size[0], size[1], snapshot(t, tm))
		}
		// A new console: the refused line is still in the input.
		m = New(testOptions(testEngine(t, 0)))
		tm = start(t, m, size[0], size[1])
		tm.Send(altKey('2'))
		tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
		waitFor(t, tm, "alternate's refusal", func(m *Model) bool { return m.statusErr && strings.Contains(m.status, "alternate") })
		var status string
		probe(t, tm, func(m *Model) { status = m.status })
		if s := flatten(snapshot(t, tm)); !strings.Contains(s, status) {
			t.Errorf("%dx%d: the status %q is not shown whole:\n%s", size[0], size[1], status, snapshot(t, tm))
		}
	}
}

// A mode switch puts the focus in the input, wherever it was: Enter then
// belongs to the new mode.
func TestModeSwitchFocusesTheInput(t *testing.T) {
	e := testEngine(t, 0)
	m := New(testOptions(e))
	tm := start(t, m, 100, 30)
	typeLine(tm, "@all hello")
	waitFor(t, tm, "the answers", func(m *Model) bool { return idle(m) && m.tr.Len() == 3 })
	tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
	waitFor(t, tm, "the transcript's focus", func(m *Model) bool { return m.focus != focusInput })
	tm.Send(altKey('2'))
	waitFor(t, tm, "alternate", func(m *Model) bool { return m.engine.Current().Name() == "alternate" })
	probe(t, tm, func(m *Model) {
		if m.focus != focusInput {
			t.Errorf("after the switch the focus is %v, want the input", m.focus)
		}
	})
}
