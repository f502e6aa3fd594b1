package tui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// exchangesEngine holds n exchanges: the user's line, then Gemini's and
// ChatGPT's answers.
func exchangesEngine(tb testing.TB, n int) *debate.Engine {
	tb.Helper()
	var entries []transcript.Entry
	for x := 1; x <= n; x++ {
		for _, who := range []string{transcript.SpeakerUser, "gemini", "chatgpt"} {
			en := transcript.Entry{Turn: len(entries) + 1, Kind: transcript.KindReply, Speaker: who, Text: fmt.Sprintf("%s in exchange %d.", who, x), Status: transcript.StatusComplete, Mode: "mention"}
			if who == transcript.SpeakerUser {
				en.Kind, en.Text = transcript.KindUser, fmt.Sprintf("@all question %d", x)
			}
			entries = append(entries, en)
		}
	}
	return restoredEngine(tb, entries)
}

// g/G go to the first and last turn, [/] to the previous and next
// exchange, {/} to the previous and next turn of the selected speaker.
func TestTranscriptJumpsByExchangeAndSpeaker(t *testing.T) {
	t.Parallel()
	for _, sz := range tmuxSizes {
		t.Run(sz.name, func(t *testing.T) {
			t.Parallel()
			m := newModel(t, exchangesEngine(t, 4), sz.w, sz.h)
			defer m.Close()
			m.Update(keyMsg(tea.KeyTab))
			steps := []struct {
				key  string
				want int
			}{
				{"G", 12}, {"{", 9}, {"{", 6}, {"}", 9}, {"[", 7}, {"[", 4}, {"]", 7},
				{"g", 1}, {"[", 1}, {"}", 4}, {"]", 7}, {"]", 10}, {"]", 10}, {"G", 12},
			}
			for i, s := range steps {
				r := []rune(s.key)[0]
				m.Update(tea.KeyPressMsg{Code: r, Text: s.key})
				m.View() // as the program draws after each key
				if got := selectedTurn(m); got != s.want {
					t.Fatalf("step %d (%s): turn %d, want %d", i, s.key, got, s.want)
				}
				if i == 6 {
					golden.RequireEqual(t, screen(m)) // turn 7 of 12 selected: the rule says so
				}
			}
		})
	}
}
