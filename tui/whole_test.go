package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// A message longer than the status line wraps above the totals, whole:
// the list of known agents and alternate's start rule are read to the end.
func TestLongMessagesAreReadWhole(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// Alternate says where the alternation stands and who answers next, and
// offers Enter on an empty line only once there is a next step.
func TestAlternateSaysTheStepAndWhoIsNext(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	m := New(testOptions(e))
	tm := start(t, m, 100, 30)
	tm.Send(altKey('2'))
	waitFor(t, tm, "alternate", func(m *Model) bool { return m.engine.Current().Name() == "alternate" })
	s := snapshot(t, tm)
	if !strings.Contains(s, "type an instruction: Codex starts, Claude answers") || strings.Contains(s, "enter: next step") || strings.Contains(s, "empty: next step") {
		t.Errorf("before the start:\n%s", s)
	}
	typeLine(tm, "write a Go LRU cache")
	waitFor(t, tm, "the start turn", func(m *Model) bool { return idle(m) && m.tr.Len() == 3 })
	if s := snapshot(t, tm); !strings.Contains(s, "step 1 · next: Codex · enter: next step") || !strings.Contains(s, "enter send (empty: next step)") {
		t.Errorf("after the start:\n%s", s)
	}
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitFor(t, tm, "a step", func(m *Model) bool { return idle(m) && m.tr.Len() == 4 })
	if s := snapshot(t, tm); !strings.Contains(s, "step 2 · next: Claude") {
		t.Errorf("after one step:\n%s", s)
	}
}

// While a step streams the rule says who answers and offers no next step
// (seen walking: "step 2 · next: Claude · enter: next step" while Claude
// was answering step 2).
func TestAlternateRuleWhileAStepStreams(t *testing.T) {
	t.Parallel()
	// 5 ms a word: an answer streams for about a second, ample for a 5 ms
	// poll to see it busy (at 20 ms the test spent 6–8 s watching words).
	e := testEngine(t, 5*time.Millisecond)
	m := New(testOptions(e))
	tm := start(t, m, 100, 30)
	tm.Send(altKey('2'))
	waitFor(t, tm, "alternate", func(m *Model) bool { return m.engine.Current().Name() == "alternate" })
	typeLine(tm, "write a Go LRU cache")
	var during string
	waitFor(t, tm, "the start turn streaming", func(m *Model) bool {
		if m.busy() {
			during = screen(m)
		}
		return m.busy()
	})
	if !strings.Contains(during, "start: Codex answers, then Claude") || strings.Contains(during, "enter: next step") {
		t.Errorf("while the start turn streams:\n%s", during)
	}
	waitFor(t, tm, "the start turn", func(m *Model) bool { return idle(m) && m.tr.Len() == 3 })
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitFor(t, tm, "step 1 streaming", func(m *Model) bool {
		if m.busy() {
			during = screen(m)
		}
		return m.busy()
	})
	if !strings.Contains(during, "step 1 · Codex answering") || strings.Contains(during, "enter: next step") {
		t.Errorf("while step 1 streams:\n%s", during)
	}
	waitFor(t, tm, "step 1", func(m *Model) bool { return idle(m) && m.tr.Len() == 4 })
}

// A finished answer taller than its panel says how many lines are above;
// the focused panel has a heavy border, and scrolling back reaches the top.
func TestTallAnswerSaysWhatIsAboveAndScrolls(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	m := New(testOptions(e))
	tm := start(t, m, 100, 30)
	typeLine(tm, "@all compare Kafka and NATS")
	waitFor(t, tm, "answers", func(m *Model) bool { return idle(m) && m.tr.Len() == 3 })
	s := snapshot(t, tm)
	if !strings.Contains(s, " more (2 tabs, then ↑)") || strings.Contains(s, "┏") {
		t.Errorf("no sign of the lines above, or a panel drawn focused:\n%s", s)
	}
	tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
	waitFor(t, tm, "the panels' focus", func(m *Model) bool { return m.focus == focusPanels })
	for range 40 {
		tm.Send(tea.KeyPressMsg{Code: tea.KeyUp})
	}
	// The focused panel, drawn with a heavy border, shows its first line.
	waitFor(t, tm, "the top of the answer", func(m *Model) bool { return strings.Contains(screen(m), "┃ Gemini on compare Kafka and NATS") })
}

// A console opened on a saved session says which one and how long it is.
func TestResumedConsoleSaysWhichSession(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	if err := e.Restore(debate.SessionInfo{ID: "5e55101d0000", Mode: "mention", Title: "mention · kafka or nats?"},
		[]transcript.Entry{{Turn: 1, Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: "@all kafka or nats?", Status: transcript.StatusComplete}}); err != nil {
		t.Fatal(err)
	}
	opts := testOptions(e)
	opts.Resumed = true
	m := New(opts)
	defer m.Close()
	if want := `resumed "mention · kafka or nats?" (1 turn)`; m.status != want {
		t.Errorf("status %q, want %q", m.status, want)
	}
}
