package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
)

// typeKeys sends text to the model as key presses.
func typeKeys(m *Model, text string) {
	for _, r := range text {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func ruleLine(m *Model) string {
	return strings.Split(screen(m), "\n")[m.lay.inputY]
}

// Ctrl+F searches every turn as the query is typed; Enter and n go to the
// next match, N to the previous, with a count; the matches are
// highlighted; Esc goes back to where the view was.
func TestFindMovesThroughMatchesAndEscGoesBack(t *testing.T) {
	t.Parallel()
	for _, sz := range tmuxSizes {
		t.Run(sz.name, func(t *testing.T) {
			t.Parallel()
			m := newModel(t, historyEngine(t, 23), sz.w, sz.h)
			defer m.Close()
			m.Update(ctrlKey('f'))
			typeKeys(m, "Answer 1")
			// Turns 10, 12, 14, 16, 18: "Answer 1x"; n in the query is typed, not a move.
			if r := ruleLine(m); !strings.Contains(r, "/Answer 1") || !strings.Contains(r, "5 matches") {
				t.Fatalf("rule while typing: %q", r)
			}
			m.Update(keyMsg(tea.KeyEnter))
			if got := selectedTurn(m); got != 18 {
				t.Errorf("the first match from the latest turn is turn %d, want 18", got)
			}
			if r := ruleLine(m); !strings.Contains(r, "5/5") {
				t.Errorf("rule: %q", r)
			}
			if !strings.Contains(strings.Join(m.frame(), "\n"), m.th.found.Render("Answer 1")) {
				t.Errorf("the match is not highlighted:\n%s", screen(m))
			}
			golden.RequireEqual(t, screen(m))
			m.Update(tea.KeyPressMsg{Code: 'n', Text: "n"})
			if got := selectedTurn(m); got != 10 {
				t.Errorf("n after the last match went to turn %d, want 10 (round the end)", got)
			}
			m.Update(tea.KeyPressMsg{Code: 'N', Text: "N"})
			m.Update(tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModShift})
			if got, r := selectedTurn(m), ruleLine(m); got != 16 || !strings.Contains(r, "4/5") {
				t.Errorf("N, shift+enter: turn %d, rule %q; want 16, 4/5", got, r)
			}
			m.Update(keyMsg(tea.KeyEscape))
			if m.find != nil || m.focus != focusInput || !m.tr.follow || strings.Contains(strings.Join(m.frame(), "\n"), m.th.found.Render("Answer 1")) {
				t.Errorf("esc: find %v, focus %d, following %v:\n%s", m.find != nil, m.focus, m.tr.follow, screen(m))
			}
		})
	}
}

// /search TEXT from the input goes to the match nearest the view; / opens
// the search where the input has not the keys (there it starts a command).
func TestSearchCommandAndSlashKey(t *testing.T) {
	t.Parallel()
	m := newModel(t, historyEngine(t, 23), 100, 30)
	defer m.Close()
	m.in.SetValue("/search QUESTION 7")
	m.submit()
	if got := selectedTurn(m); got != 7 {
		t.Errorf("/search went to turn %d, want 7", got)
	}
	m.Update(keyMsg(tea.KeyEscape))
	typeKeys(m, "/")
	if m.find != nil || m.in.Value() != "/" {
		t.Errorf("/ in the input opened the search (value %q)", m.in.Value())
	}
	m.in.SetValue("")
	m.Update(keyMsg(tea.KeyTab))
	typeKeys(m, "/question 2")
	m.Update(keyMsg(tea.KeyEnter))
	if got := selectedTurn(m); got != 23 {
		t.Errorf("/ from the transcript: turn %d, want 23 (question 23, nearest the end)", got)
	}
	typeKeys(m, "nothing like it")
	if m.find != nil {
		t.Errorf("a key that is not the search's closed nothing")
	}
}
