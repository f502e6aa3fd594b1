package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/providers/demo"
)

// Seen at 100×30 and 60×16: at the end of a council the chairman's panel
// cut its own lines ("↑ 23 more (2 tabs, t…", "claude-sonn…", "ranked
// Claude › Chat…"). Focused and scrolled, the panel shows every line of
// the chairman's answer, and nothing in any panel is cut.
func TestChairmanAnswerReadsWholeInItsPanel(t *testing.T) {
	t.Parallel()
	for _, sz := range tmuxSizes {
		t.Run(sz.name, func(t *testing.T) {
			t.Parallel()
			m := New(testOptions(testEngine(t, 0)))
			tm := start(t, m, sz.w, sz.h)
			tm.Send(altKey('6'))
			waitFor(t, tm, "council mode", func(m *Model) bool { return m.engine.Current().Name() == "council" })
			typeLine(tm, "kafka or nats?")
			waitFor(t, tm, "the council to end", func(m *Model) bool { return idle(m) && m.council.stage3 != nil })
			var answer []string
			probe(t, tm, func(m *Model) {
				if s := strings.Join(panelRows(m), "\n"); strings.Contains(s, "…") {
					t.Errorf("a panel line is cut:\n%s", s)
				}
				p := m.panels[3]
				for _, l := range p.answer.Lines(m.md, p.width-4) {
					answer = append(answer, ansi.Strip(l))
				}
			})
			tm.Send(keyMsg(tea.KeyTab))
			tm.Send(keyMsg(tea.KeyTab))
			active := 0
			probe(t, tm, func(m *Model) { active = m.active })
			for range (3 - active + 4) % 4 {
				tm.Send(keyMsg(tea.KeyRight)) // to the chairman
			}
			var seen []string
			for i := range 40 {
				if i > 0 {
					tm.Send(keyMsg(tea.KeyUp)) // from the end back to the start
				}
				probe(t, tm, func(m *Model) {
					for _, l := range panelRows(m) {
						if i := strings.Index(l, "┃"); i >= 0 {
							seen = append(seen, l[i:]) // the focused panel
						}
					}
				})
			}
			all := strings.Join(seen, "\n")
			if strings.Contains(all, "…") {
				t.Errorf("a panel line is cut:\n%s", all)
			}
			seenRow := map[string]bool{}
			for _, l := range seen {
				seenRow[strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "┃│"))] = true
			}
			for _, line := range answer {
				if line = strings.TrimSpace(line); line != "" && !seenRow[line] {
					t.Errorf("scrolled from end to start, the chairman's panel never shows the line %q:\n%s", line, all)
				}
			}
		})
	}
}

// A new exchange clears the last council's ranking table (seen: it stayed
// on screen through the next council's first stage).
func TestNewQuestionClearsTheRankingTable(t *testing.T) {
	t.Parallel()
	m := New(testOptions(testEngine(t, 0)))
	tm := start(t, m, 100, 30)
	tm.Send(altKey('6'))
	waitFor(t, tm, "council mode", func(m *Model) bool { return m.engine.Current().Name() == "council" })
	typeLine(tm, "kafka or nats?")
	waitFor(t, tm, "the council to end", func(m *Model) bool { return idle(m) && m.council.stage3 != nil })
	probe(t, tm, func(m *Model) {
		if !strings.Contains(screen(m), "Peer ranking") {
			t.Fatalf("no ranking table after the council:\n%s", screen(m))
		}
		for _, a := range m.engine.Agents() {
			a.Provider = demo.NewWithPace("demo", time.Second) // the next council stays in its first stage
		}
	})
	before := 0
	probe(t, tm, func(m *Model) { before = m.tr.Len() })
	typeLine(tm, "and for a bank?")
	waitFor(t, tm, "the next question", func(m *Model) bool { return m.tr.Len() > before })
	if s := snapshot(t, tm); strings.Contains(s, "Peer ranking") {
		t.Errorf("the last council's table is still on screen:\n%s", s)
	}
}
