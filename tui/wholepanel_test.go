package tui

import (
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/tui/prefs"

	"time"

	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/providers/demo"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// panelRows is the panel area of a screen: its rows between the header and
// the panels' bottom border, as plain text.
func panelRows(m *Model) []string {
	lines := m.frame()
	var out []string
	for _, l := range lines[m.lay.panelsY : m.lay.panelsY+m.lay.panelsH] {
		out = append(out, strings.TrimRight(ansi.Strip(l), " "))
	}
	return out
}

// Seen at 100×30 with --demo: glamour wraps a list item's continuation
// before counting its indent, one cell too wide for the panel, which cut it
// to "…than it seem…". The line wraps instead: scrolled back through the
// finished answer, every word is there and nothing is cut.
func TestFinishedPanelLosesNoCharacter(t *testing.T) {
	t.Parallel()
	m := New(testOptions(testEngine(t, 0)))
	tm := start(t, m, 100, 30)
	typeLine(tm, "@all compare Kafka and NATS for a small team")
	waitFor(t, tm, "both answers", func(m *Model) bool { return idle(m) && m.tr.Len() >= 3 })
	tm.Send(keyMsg(tea.KeyTab))
	tm.Send(keyMsg(tea.KeyTab))
	tm.Send(keyMsg(tea.KeyRight)) // ChatGPT's panel
	var seen []string
	for range 12 {
		tm.Send(keyMsg(tea.KeyUp))
		probe(t, tm, func(m *Model) { seen = append(seen, panelRows(m)...) })
	}
	all := strings.Join(seen, "\n")
	if strings.Contains(all, "…") {
		t.Errorf("a panel line is cut:\n%s", all)
	}
	var right []string
	for _, l := range seen {
		if cells := []rune(l); len(cells) > 50 {
			right = append(right, strings.Trim(string(cells[50:]), "│┃ "))
		}
	}
	if flat := strings.Join(right, " "); !strings.Contains(flat, "Kafka and NATS: it changes the answer more than it seems.") {
		t.Errorf("ChatGPT's panel never shows the whole sentence:\n%s", all)
	}
}

// No line of rendered Markdown is wider than asked, whatever glamour does
// with a numbered list.
func TestMarkdownNeverWiderThanItsWidth(t *testing.T) {
	t.Parallel()
	md := newMarkdown(newTheme(prefs.ThemeDark))
	text := "Intro line.\n\n1. Pin down what matters most about Kafka and NATS: it changes the answer more than it seems.\n2. Try Kafka on one concrete example: it is where most mistakes hide.\n   - nested item that is long enough to wrap more than once at narrow widths"
	for w := 20; w <= 60; w++ {
		lines := md.Render(text, w)
		words := 0
		for _, l := range lines {
			if n := ansi.StringWidth(l); n > w {
				t.Fatalf("width %d: a line of %d cells: %q", w, n, ansi.Strip(l))
			}
			words += len(strings.Fields(ansi.Strip(l)))
		}
		if want := len(strings.Fields(text)); words != want {
			t.Errorf("width %d: %d words shown, want %d", w, words, want)
		}
	}
}

// A retried answer streams under no error: the failed attempt's text goes
// once the next attempt's first words arrive.
func TestRetriedAnswerDropsTheOldError(t *testing.T) {
	t.Parallel()
	a := &debate.Agent{AgentSpec: config.AgentSpec{Name: "chatgpt", Display: "ChatGPT", Model: "m"}, Provider: demo.New("demo")}
	p := newPanel(a, "", newTheme(prefs.ThemeDark))
	p.SetSize(50, 12)
	md := newMarkdown(newTheme(prefs.ThemeDark))
	view := func() string { return ansi.Strip(strings.Join(p.View(md, "*", fixedNow, false), "\n")) }
	p.Start(transcript.Entry{Turn: 2, Kind: transcript.KindReply})
	p.Retry(debate.Retrying{Turn: 2, Wait: time.Second, Err: "rate_limit (HTTP 429)"}, fixedNow)
	if !strings.Contains(view(), "rate_limit (HTTP 429)") {
		t.Fatalf("the waiting panel does not say why:\n%s", view())
	}
	p.Delta(2, "The second attempt answers.", "")
	if s := view(); strings.Contains(s, "rate_limit") || !strings.Contains(s, "second attempt") {
		t.Errorf("streaming after a retry:\n%s", s)
	}
}
