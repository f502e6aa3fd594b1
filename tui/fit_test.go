package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/parleyhq/parley/debate"
)

// The three sizes the console is checked at in tmux.
var tmuxSizes = []struct {
	name string
	w, h int
}{{"60x16", 60, 16}, {"100x30", 100, 30}, {"200x50", 200, 50}}

// The mode tabs are never cut (seen at 60 columns: "1 men 2 alt 3 tal…"):
// the idle modes lose their names, then the current one.
func TestModeTabsAreNeverCut(t *testing.T) {
	t.Parallel()
	m := New(testOptions(testEngine(t, 0)))
	defer m.Close()
	for w := minWidth; w <= 200; w++ {
		h := ansi.Strip(m.header(w))
		if strings.Contains(h, "…") || !strings.Contains(h, " 6 ") && !strings.Contains(h, "6 council") {
			t.Fatalf("width %d: %q", w, h)
		}
	}
	if h := ansi.Strip(m.header(60)); !strings.Contains(h, "1 mention  2  3  4  5  6") {
		t.Errorf("at 60 columns: %q", h)
	}
}

// The key line shows whole keys only: the least important go rather than
// the last one shown being cut (seen at 100 columns: "esc cancel / clos…").
func TestKeyLineDropsKeysWhole(t *testing.T) {
	t.Parallel()
	m := New(testOptions(testEngine(t, 0)))
	defer m.Close()
	for _, f := range []focusArea{focusInput, focusTranscript, focusPanels} {
		m.keys.focus = f
		whole := map[string]bool{}
		for _, b := range m.keys.ShortHelp() {
			whole[b.Help().Key+" "+b.Help().Desc] = true
		}
		for w := minWidth; w <= 200; w++ {
			m.focus = f
			line := strings.TrimRight(ansi.Strip(m.helpLine(w)), " ")
			if ansi.StringWidth(line) > w {
				t.Fatalf("focus %d, width %d: %d cells", f, w, ansi.StringWidth(line))
			}
			for _, item := range strings.Split(line, " • ") {
				if !whole[item] {
					t.Fatalf("focus %d, width %d: %q is not a whole key in %q", f, w, item, line)
				}
			}
		}
	}
}

// The Ctrl+S list shows each session's title at every size, and uses the
// room of a wide window (seen: no title at 60 columns, ~100 wide at 200).
func TestSessionListShowsTitlesAtEverySize(t *testing.T) {
	t.Parallel()
	for _, sz := range tmuxSizes {
		t.Run(sz.name, func(t *testing.T) {
			t.Parallel()
			opts := testOptions(testEngine(t, 0))
			opts.Sessions = &fakeSessions{}
			m := New(opts)
			defer m.Close()
			m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
			m.sessions = &sessionList{current: "aaaaaa111111", now: fixedNow, items: []debate.SessionSummary{
				{SessionInfo: debate.SessionInfo{ID: "aaaaaa111111", Mode: "mention", Created: fixedNow, Title: "kafka or nats for a small team?"}, LastActivity: fixedNow, Turns: 12, Tokens: 3456},
				{SessionInfo: debate.SessionInfo{ID: "bbbbbb222222", Mode: "council", Created: fixedNow, Title: "should we migrate to Postgres?"}, LastActivity: fixedNow, Turns: 9, Tokens: 789},
			}}
			m.layout()
			s := screen(m)
			for _, want := range []string{"kafka or nats", "should we migrate"} {
				if !strings.Contains(s, want) {
					t.Errorf("no title %q:\n%s", want, s)
				}
			}
			if wide := m.sessions.width; sz.w == 200 && wide < 150 {
				t.Errorf("the list is %d wide in 200 columns", wide)
			}
			golden.RequireEqual(t, s)
		})
	}
}
