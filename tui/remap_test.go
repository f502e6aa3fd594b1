package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/debate/config"
)

// Remapped keys act, free the keys they replace, and are the keys the
// help line, the full help, the palette and the welcome name.
func TestRemappedKeysActAndShow(t *testing.T) {
	t.Parallel()
	o := testOptions(codeEngine(t))
	o.Keys = map[string]config.KeyList{
		"copy":       {"c"},
		"help":       {"f2"},
		"palette":    {"ctrl+o"},
		"newline":    {"ctrl+n"},
		"focus_next": {"ctrl+l"},
		"mode_magi":  {"alt+m"},
	}
	m := New(o)
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	drain(m)
	empty := testOptions(testEngine(t, 0))
	empty.Keys = o.Keys
	w := newModelWith(t, empty, 200, 50)
	defer w.Close()
	if s := flatten(screen(w)); !strings.Contains(s, "F2: every key and command · Ctrl+O: run any of them") || !strings.Contains(s, "alt+m magi") {
		t.Errorf("the welcome does not name f2, ctrl+o and alt+m:\n%s", s)
	}
	help := ansi.Strip(m.helpLine(200))
	for _, want := range []string{"f2 all keys", "ctrl+l focus next", "alt+1/2/3/m/5/6 mode"} {
		if !strings.Contains(help, want) {
			t.Errorf("the help line lacks %q: %q", want, help)
		}
	}
	// Focus the transcript with the new key; tab no longer moves it.
	m.Update(keyMsg(tea.KeyTab))
	if m.focus != focusInput {
		t.Fatalf("tab still moves the focus (%v)", m.focus)
	}
	m.Update(ctrlKey('l'))
	if m.focus != focusTranscript {
		t.Fatalf("ctrl+l did not focus the transcript (%v)", m.focus)
	}
	if help := ansi.Strip(m.helpLine(200)); !strings.Contains(help, "c copy") {
		t.Errorf("the transcript's help line lacks c copy: %q", help)
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'c', Text: "c"})
	if got := clipboardOf(t, cmd); got != codeAnswer {
		t.Errorf("c copied %q", got)
	}
	// y is free: a letter typed into the input.
	m.Update(ctrlKey('l'))
	m.Update(ctrlKey('l'))
	m.Update(ctrlKey('l')) // around to the transcript again
	if m.focus != focusTranscript {
		t.Fatalf("focus %v", m.focus)
	}
	m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	if m.focus != focusInput || m.in.Value() != "y" {
		t.Errorf("y: focus %v, input %q; want it typed", m.focus, m.in.Value())
	}
	// ctrl+n starts a new line; the old alt+enter does not.
	m.Update(ctrlKey('n'))
	m.Update(tea.KeyPressMsg{Code: 'z', Text: "z"})
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt})
	if got := m.in.Value(); got != "y\nz" {
		t.Errorf("input %q, want y, a new line, z", got)
	}
	// The mode key.
	m.Update(altKey('m'))
	if got := m.engine.Current().Name(); got != "magi" {
		t.Errorf("alt+m: mode %s", got)
	}
	m.Update(altKey('4'))
	if got := m.engine.Current().Name(); got != "magi" {
		t.Errorf("alt+4 still switches (to %s)", got)
	}
	// The palette opens on ctrl+o, not ctrl+p, and names the keys in force.
	m.Update(ctrlKey('p'))
	if m.palette != nil {
		t.Fatal("ctrl+p opened the palette")
	}
	m.Update(ctrlKey('o'))
	if m.palette == nil {
		t.Fatal("ctrl+o did not open the palette")
	}
	keys := map[string]string{}
	for _, it := range m.palette.items {
		keys[it.title] = it.keys
	}
	for title, want := range map[string]string{"transcript: copy the turn (Markdown)": "c", "/help  every key and command": "f2", "magi mode  " + modeTitle(m, "magi"): "alt+m", "focus next": "ctrl+l"} {
		if keys[title] != want {
			t.Errorf("palette row %q shows %q, want %q (rows: %v)", title, keys[title], want, keys)
		}
	}
	// The full help lists them.
	m.Update(keyMsg(tea.KeyEscape))
	m.Update(tea.KeyPressMsg{Code: tea.KeyF2})
	if m.overlay == nil || !strings.Contains(strings.Join(m.overlay.lines, "\n"), "alt+m") {
		t.Errorf("f2 did not open the full help with alt+m")
	}
}

func newModelWith(t *testing.T, o Options, w, h int) *Model {
	t.Helper()
	m := New(o)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drain(m)
	return m
}

func modeTitle(m *Model, name string) string {
	mi, _ := m.engine.Modes().Info(name)
	return mi.Title
}

// A keys: the configuration's check would refuse keeps the defaults and
// says so, rather than leave the console without keys.
func TestBadKeysKeepTheDefaults(t *testing.T) {
	t.Parallel()
	o := testOptions(testEngine(t, 0))
	o.Keys = map[string]config.KeyList{"copy": {"j"}}
	m := New(o)
	defer m.Close()
	if !m.statusErr || !strings.Contains(m.status, "keys.copy: j is also the key of down") || !strings.Contains(m.status, "default keys") {
		t.Errorf("status %q", m.status)
	}
	if got := strings.Join(m.keys.Copy.Keys(), ","); got != "y" {
		t.Errorf("copy is on %s", got)
	}
}

// A child's own key map (the /evidence list's) is built from the keys in
// force: remapped up, down and cancel move and close it.
func TestEvidenceListTakesRemappedKeys(t *testing.T) {
	t.Parallel()
	k, err := newKeys(testEngine(t, 0).Modes().Infos(), map[string]config.KeyList{"down": {"ctrl+d"}, "cancel": {"ctrl+g"}})
	if err != nil {
		t.Fatal(err)
	}
	ek := newEvidenceKeys(k)
	if got := strings.Join(ek.Down.Keys(), ","); got != "ctrl+d" {
		t.Errorf("down: %s", got)
	}
	if got := strings.Join(ek.Close.Keys(), ","); got != "ctrl+g,q" {
		t.Errorf("close: %s", got)
	}
	if got := ek.Close.Help().Key; got != "ctrl+g" {
		t.Errorf("close's help: %s", got)
	}
}
