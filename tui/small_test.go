package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/parleyhq/parley/debate/modes"
)

// Below the usable size the console says so in one line instead of drawing
// a broken layout; at the usable size it draws the console, and growing
// the window brings it back.
func TestTooSmallWindowShowsOneLineNotice(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	m := New(screenOptions(e))
	defer m.Close()
	minH := m.minHeight()
	want := fmt.Sprintf("enlarge the window (needs %d×%d)", minWidth, minH)
	for _, sz := range [][2]int{{minWidth - 1, 40}, {120, minH - 1}, {20, 5}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		lines := strings.Split(m.View().Content, "\n")
		if len(lines) != sz[1] {
			t.Fatalf("%dx%d: %d lines", sz[0], sz[1], len(lines))
		}
		if got := strings.TrimSpace(ansi.Strip(lines[0])); !strings.HasPrefix(want, strings.TrimSuffix(got, "…")) || got == "" {
			t.Errorf("%dx%d: first line %q, want %q", sz[0], sz[1], got, want)
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w != sz[0] {
				t.Errorf("%dx%d: line %d is %d wide", sz[0], sz[1], i, w)
			}
			if i > 0 && strings.TrimSpace(ansi.Strip(l)) != "" {
				t.Errorf("%dx%d: line %d is not blank: %q", sz[0], sz[1], i, l)
			}
		}
	}
	if minH > 16 {
		t.Errorf("the console needs %d rows: 60x16 must be usable", minH)
	}
	m.Update(tea.WindowSizeMsg{Width: minWidth, Height: minH})
	if s := screen(m); strings.Contains(s, "enlarge") || !strings.HasPrefix(s, "Parley") {
		t.Errorf("at %dx%d the console should draw:\n%s", minWidth, minH, s)
	}
}

// At the smallest usable size, in the mode that needs the most room (MAGI,
// with votes and a verdict banner), the shown panel still shows its answer.
func TestSmallestUsableSizeShowsTheAnswer(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	if err := e.SetMode("magi"); err != nil {
		t.Fatal(err)
	}
	m := New(screenOptions(e))
	tm := start(t, m, minWidth, m.minHeight())
	typeLine(tm, "Should we ship on Friday?")
	waitFor(t, tm, "the verdict", func(m *Model) bool { return idle(m) && m.verdict != "" })
	var s, panel string
	probe(t, tm, func(m *Model) {
		s = screen(m)
		rows := strings.Split(s, "\n")
		panel = strings.Join(rows[m.lay.panelsY:m.lay.panelsY+m.lay.panelsH], "\n")
		if m.lay.transcriptH < 1 {
			t.Errorf("no transcript line left:\n%s", s)
		}
	})
	if !strings.Contains(panel, "R3") || !strings.Contains(panel, "tested.") {
		t.Errorf("the panel lacks its votes or its answer:\n%s", s)
	}
}

// The status line says the session's totals once; the exchange's own
// count only when it differs from them.
func TestStatusLineSaysTheTotalsOnce(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	m := New(testOptions(e))
	tm := start(t, m, 60, 16)
	ask := func(line string, turns int) (status, total string) {
		typeLine(tm, line)
		waitFor(t, tm, "the answers", func(m *Model) bool { return idle(m) && m.tr.Len() == turns && m.status != "" })
		probe(t, tm, func(m *Model) {
			// The message and the totals, over as many rows as they take.
			status = strings.Join(strings.Fields(ansi.Strip(strings.Join(m.statusLines(m.width), " "))), " ")
			total = fmt.Sprintf("%d→%d tok", m.usage.InputTokens, m.usage.OutputTokens)
		})
		return status, total
	}
	first, _ := ask("@all hello", 3)
	if n := strings.Count(first, " tok"); n != 1 || !strings.HasPrefix(first, "done ") || !strings.Contains(first, "mention · 5e5510 ·") {
		t.Errorf("after the first exchange: %q", first)
	}
	second, total := ask("@gemini and now?", 5)
	if !strings.HasPrefix(second, "done · this exchange ") || !strings.HasSuffix(second, total) || strings.Count(second, total) != 1 {
		t.Errorf("after the second exchange: %q (totals %s)", second, total)
	}
}

// A banner longer than its lines loses whole sentences from its end; the
// first sentence always stays.
func TestBannerKeepsWholeSentences(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	opts := testOptions(e)
	opts.Banner = "First sentence is short. The second sentence is a good deal longer than the first one was. Third sentence adds more words to spill over."
	m := New(opts)
	defer m.Close()
	m.width = 60
	plain := func(lines []string) string {
		var out []string
		for _, l := range lines {
			out = append(out, strings.TrimSpace(ansi.Strip(l)))
		}
		return strings.Join(out, " ")
	}
	if got := plain(m.bannerLines(1)); got != "First sentence is short." {
		t.Errorf("one line: %q", got)
	}
	if got := plain(m.bannerLines(2)); got != "First sentence is short. The second sentence is a good deal longer than the first one was." {
		t.Errorf("two lines: %q", got)
	}
	if got := plain(m.bannerLines(3)); !strings.HasSuffix(got, "spill over.") {
		t.Errorf("three lines: %q", got)
	}
	m.width = minWidth
	if got := m.bannerLines(1); len(got) != 1 {
		t.Errorf("the first sentence takes %d lines at %d columns", len(got), minWidth)
	}
}

// The first screen welcomes: examples for the mode, the mode keys, where
// the configuration and the sessions are. The first entry replaces it.
func TestWelcomeUntilTheFirstEntry(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	m := New(screenOptions(e))
	tm := start(t, m, 100, 30)
	s := snapshot(t, tm)
	for _, want := range []string{
		"› @all compare Kafka and NATS for a small team", "› @gemini what would you measure first?",
		"Config: built-in (yours: ./parley.yaml or /home/ada/.config/parley/config.yaml)",
		"Sessions: /home/ada/.local/share/parley/parley.db",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the welcome lacks %q:\n%s", want, s)
		}
	}
	for _, mi := range modes.All().Infos() {
		if !strings.Contains(s, mi.Key+" "+mi.Name) {
			t.Errorf("the welcome lacks the key of %s:\n%s", mi.Name, s)
		}
	}
	tm.Send(altKey('4'))
	waitFor(t, tm, "magi", func(m *Model) bool { return m.engine.Current().Name() == "magi" })
	if s := snapshot(t, tm); !strings.Contains(s, "› Should we ship on Friday?") || strings.Contains(s, "@all compare") {
		t.Errorf("magi's welcome should have magi's examples:\n%s", s)
	}
	tm.Send(altKey('1'))
	waitFor(t, tm, "mention", func(m *Model) bool { return m.engine.Current().Name() == "mention" })
	var emptyPanels int
	probe(t, tm, func(m *Model) { emptyPanels = m.lay.panelsH })
	typeLine(tm, "we expect 10k messages a second")
	waitFor(t, tm, "the note", func(m *Model) bool { return m.tr.Len() == 1 })
	probe(t, tm, func(m *Model) {
		s := screen(m)
		if strings.Contains(s, "Try in") || strings.Contains(s, "Sessions:") || !strings.Contains(s, "we expect 10k messages a second") {
			t.Errorf("the first entry should replace the welcome:\n%s", s)
		}
		if m.lay.panelsH <= emptyPanels {
			t.Errorf("the panels did not get their room back: %d rows, %d while welcoming", m.lay.panelsH, emptyPanels)
		}
	})
}
