package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

const codeAnswer = "Use a bounded retry.\n\n```go\nfor i := 0; i < 3; i++ {\n\tcall()\n}\n```\n\nThen log the last error."

// codeEngine holds a question and an answer with a code block.
func codeEngine(tb testing.TB) *debate.Engine {
	tb.Helper()
	return restoredEngine(tb, []transcript.Entry{
		{Turn: 1, Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: "@chatgpt a retry loop?", Status: transcript.StatusComplete, Mode: "mention"},
		{Turn: 2, Kind: transcript.KindReply, Speaker: "chatgpt", Text: codeAnswer, Status: transcript.StatusComplete, Mode: "mention"},
	})
}

// clipboardOf runs a command and returns what it puts on the clipboard
// (OSC 52 is Bubble Tea's to write: its message holds the text).
func clipboardOf(t *testing.T, cmd tea.Cmd) string {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command")
	}
	msg := cmd()
	if name := fmt.Sprintf("%T", msg); !strings.Contains(name, "setClipboardMsg") {
		t.Fatalf("the command sends %s, not the clipboard", name)
	}
	return fmt.Sprint(msg)
}

// y copies the selected turn's Markdown, tabs and all; Y its last code
// block; each says so on one line.
func TestCopyTurnAndCodeBlock(t *testing.T) {
	t.Parallel()
	for _, sz := range tmuxSizes {
		t.Run(sz.name, func(t *testing.T) {
			t.Parallel()
			m := newModel(t, codeEngine(t), sz.w, sz.h)
			defer m.Close()
			m.Update(keyMsg(tea.KeyTab))
			_, cmd := m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
			if got := clipboardOf(t, cmd); got != codeAnswer {
				t.Errorf("y copied %q", got)
			}
			if !strings.Contains(m.status, "copied turn 2 (9 lines)") {
				t.Errorf("status %q", m.status)
			}
			golden.RequireEqual(t, screen(m))
			_, cmd = m.Update(tea.KeyPressMsg{Code: 'Y', Text: "Y"})
			if got := clipboardOf(t, cmd); got != "for i := 0; i < 3; i++ {\n\tcall()\n}" {
				t.Errorf("Y copied %q", got)
			}
			m.Update(keyMsg(tea.KeyUp)) // the question: no code
			if _, cmd = m.Update(tea.KeyPressMsg{Code: 'Y', Text: "Y"}); cmd != nil || !strings.Contains(m.status, "turn 1 has no code block") {
				t.Errorf("Y on a turn without code: status %q", m.status)
			}
		})
	}
}

// v frees the mouse for the terminal's own selection and says how to
// leave; v or Esc gives it back.
func TestSelectModeReleasesTheMouse(t *testing.T) {
	t.Parallel()
	m := newModel(t, codeEngine(t), 100, 30)
	defer m.Close()
	m.Update(keyMsg(tea.KeyTab))
	m.Update(tea.KeyPressMsg{Code: 'v', Text: "v"})
	if v := m.View(); v.MouseMode != tea.MouseModeNone || !strings.Contains(m.status, "v or esc leaves") {
		t.Fatalf("select mode: mouse %v, status %q", v.MouseMode, m.status)
	}
	m.Update(keyMsg(tea.KeyUp)) // the keys still work
	if selectedTurn(m) != 1 {
		t.Errorf("↑ in select mode: turn %d", selectedTurn(m))
	}
	m.Update(keyMsg(tea.KeyEscape))
	if v := m.View(); v.MouseMode != tea.MouseModeCellMotion || m.focus != focusTranscript {
		t.Errorf("after esc: mouse %v, focus %d", v.MouseMode, m.focus)
	}
}
