package tui

import (
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Every key a binding names is one the palette can press: its key press
// reads as the same name (else running it from the palette would do
// nothing, or something else).
func TestEveryBindingIsAKeyPress(t *testing.T) {
	t.Parallel()
	m := New(testOptions(testEngine(t, 0)))
	defer m.Close()
	var all []key.Binding
	for _, g := range m.keys.FullHelp() {
		all = append(all, g...)
	}
	all = append(all, m.keys.ShortHelp()...)
	for _, b := range all {
		for _, name := range b.Keys() {
			msg, ok := keyPress(name)
			if !ok || msg.String() != name {
				t.Errorf("%q reads back as %q (ok %v)", name, msg.String(), ok)
			}
			if !key.Matches(msg, b) {
				t.Errorf("%q does not match its own binding", name)
			}
		}
	}
	for _, bad := range []string{"", "ctrl+", "ab", "\x1b", "alt+\x7f"} {
		if _, ok := keyPress(bad); ok {
			t.Errorf("%q taken for a key", bad)
		}
	}
}

// Ctrl+P lists every command of the help, every mode, every key of the
// help, and the recent sessions, each with the key in force; typing
// filters (fuzzy), Enter runs the chosen row, Esc closes.
func TestPaletteListsAndRunsEverything(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	opts := testOptions(e)
	opts.Sessions = &fakeSessions{}
	m := New(opts)
	tm := start(t, m, 100, 30)
	typeLine(tm, "@gemini hello")
	waitFor(t, tm, "the answer", func(m *Model) bool { return idle(m) && m.tr.Len() == 2 })
	tm.Send(ctrlKey('p'))
	waitFor(t, tm, "the sessions in the palette", func(m *Model) bool {
		return m.palette != nil && slices.ContainsFunc(m.palette.items, func(it paletteItem) bool { return it.kind == "session" })
	})
	probe(t, tm, func(m *Model) {
		has := func(kind, title, keys string) {
			t.Helper()
			if !slices.ContainsFunc(m.palette.items, func(it paletteItem) bool {
				return it.kind == kind && strings.Contains(it.title, title) && it.keys == keys
			}) {
				t.Errorf("no %s row %q with key %q", kind, title, keys)
			}
		}
		for _, c := range []string{"/new", "/fork", "/saveas", "/export md", "/export json", "/agents", "/title", "/budget"} {
			has("command", c, "")
		}
		has("command", "/help", "?/f1")
		has("command", "/search", "ctrl+f or /")
		has("command", "/sessions", "ctrl+s")
		has("command", "/quit", "ctrl+c")
		for i, name := range m.engine.Modes().Names() {
			has("mode", name+" mode", m.keys.Modes[i].Help().Key)
		}
		k := m.keys
		for _, b := range []key.Binding{k.Find, k.Select, k.CycleMode, k.FocusNext, k.FocusPrev, k.Up, k.Down, k.PageUp, k.PageDown,
			k.Home, k.End, k.Open, k.PrevExchange, k.NextExchange, k.PrevSame, k.NextSame, k.Copy, k.CopyCode, k.PanelLeft, k.PanelRight} {
			has("key", b.Help().Desc, b.Help().Key)
		}
		has("session", "old talk · aaaaaa", "")
		if s := screen(m); !strings.Contains(s, "Commands") || !strings.Contains(s, "/help  every key and command") {
			t.Errorf("the palette is not on screen:\n%s", s)
		}
	})
	tm.Type("sess")
	probe(t, tm, func(m *Model) {
		if it := m.palette.items[m.palette.shown[0].Index]; !strings.HasPrefix(it.title, "/sessions") {
			t.Errorf("'sess' ranks %q first, want /sessions", it.title)
		}
	})
	tm.Send(ctrlKey('u'))
	tm.Type("magi mod")
	probe(t, tm, func(m *Model) {
		if it := m.palette.items[m.palette.shown[0].Index]; it.kind != "mode" || !strings.HasPrefix(it.title, "magi mode") {
			t.Errorf("'magi mod' ranks %q first", it.title)
		}
	})
	tm.Send(keyMsg(tea.KeyEnter))
	waitFor(t, tm, "magi", func(m *Model) bool { return m.palette == nil && m.engine.Current().Name() == "magi" })
	// A key of the transcript, run from the input: the focus moves there.
	tm.Send(ctrlKey('p'))
	tm.Type("transcript first turn")
	tm.Send(keyMsg(tea.KeyEnter))
	waitFor(t, tm, "the first turn selected", func(m *Model) bool {
		en, ok := m.tr.Selected()
		return m.focus == focusTranscript && ok && en.Turn == 1
	})
	// A command that takes an argument waits for it in the input.
	tm.Send(ctrlKey('p'))
	tm.Type("/title")
	tm.Send(keyMsg(tea.KeyEnter))
	waitFor(t, tm, "/title in the input", func(m *Model) bool { return m.focus == focusInput && m.in.Value() == "/title " })
	tm.Send(ctrlKey('p'))
	tm.Type("zzzzqqq")
	probe(t, tm, func(m *Model) {
		if len(m.palette.shown) != 0 || !strings.Contains(screen(m), "nothing matches") {
			t.Errorf("'zzzzqqq' matches %d rows", len(m.palette.shown))
		}
	})
	tm.Send(keyMsg(tea.KeyEscape))
	waitFor(t, tm, "the palette closed", func(m *Model) bool { return m.palette == nil })
}
