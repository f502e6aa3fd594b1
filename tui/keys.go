package tui

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/tui/prefs"
)

// keyMap holds every binding of the console. The help line shows the short
// list; ? or F1 shows them all.
type keyMap struct {
	Submit      key.Binding
	Newline     key.Binding
	Complete    key.Binding
	FocusNext   key.Binding
	FocusPrev   key.Binding
	ModeKeys    key.Binding   // help entry standing for every mode key
	Modes       []key.Binding // one per mode of the engine's list, in its order
	CycleMode   key.Binding
	Cancel      key.Binding
	Sessions    key.Binding
	Palette     key.Binding
	Help        key.Binding
	Quit        key.Binding
	Up          key.Binding
	Down        key.Binding
	PageUp      key.Binding
	PageDown    key.Binding
	Home        key.Binding
	End         key.Binding
	Open        key.Binding
	HistoryPrev key.Binding
	HistoryNext key.Binding
	PanelLeft   key.Binding
	PanelRight  key.Binding
	// Help-only entries of the short list (matched through the keys above).
	SelectTurn  key.Binding
	ScrollPanel key.Binding
	SwitchPanel key.Binding
	PanelEnds   key.Binding
	OpenShort   key.Binding
	FindShort   key.Binding
	CopyShort   key.Binding
	Find        key.Binding
	FindNext    key.Binding
	FindPrev    key.Binding
	// Jumps in the transcript: by exchange and by speaker.
	PrevExchange, NextExchange key.Binding
	PrevSame, NextSame         key.Binding
	// Copying: the selected turn, its last code block; select mode.
	Copy, CopyCode, Select key.Binding
	// The boxes' own keys: the palette, the session list, a box of text.
	Pal paletteKeys
	Ses sessionKeys
	Box boxKeys

	focus focusArea // what the short list describes
}

// keyActions are the console's actions with the modes' keys, in help order.
func keyActions(modes []config.ModeInfo) []prefs.Action {
	actions := prefs.Actions()
	for _, mi := range modes {
		actions = append(actions, prefs.Mode(mi.Name, mi.Key))
	}
	return actions
}

// newKeys builds the key map: the actions' keys with the configuration's
// keys: over them (checked when the configuration was loaded; a problem
// here keeps the defaults and is returned).
func newKeys(modes []config.ModeInfo, set map[string]config.KeyList) (keyMap, error) {
	actions, err := prefs.Resolve(keyActions(modes), set)
	if err != nil {
		actions = keyActions(modes)
	}
	by := map[string]prefs.Action{}
	for _, a := range actions {
		by[a.Name] = a
	}
	b := func(name string) key.Binding {
		a := by[name]
		return key.NewBinding(key.WithKeys(a.Keys...), key.WithHelp(keyLabel(a.Keys), a.Help))
	}
	// Help-only entries of the short list stand for two actions' keys.
	pair := func(x, y, desc string) key.Binding {
		a, c := by[x].Keys, by[y].Keys
		return key.NewBinding(key.WithKeys(append(slices.Clone(a), c...)...), key.WithHelp(pairLabel(a, c), desc))
	}
	short := func(name, desc string) key.Binding {
		a := by[name]
		return key.NewBinding(key.WithKeys(a.Keys...), key.WithHelp(shortest(a.Keys), desc))
	}
	k := keyMap{
		Submit: b("submit"), Newline: b("newline"), FocusNext: b("focus_next"), FocusPrev: b("focus_prev"),
		CycleMode: b("cycle_mode"), Cancel: b("cancel"), Sessions: b("sessions"), Palette: b("palette"),
		Help: b("help"), Quit: b("quit"), Up: b("up"), Down: b("down"), PageUp: b("page_up"), PageDown: b("page_down"),
		Home: b("home"), End: b("end"), Open: b("open"), HistoryPrev: b("history_prev"), HistoryNext: b("history_next"),
		PanelLeft: b("panel_left"), PanelRight: b("panel_right"),
		SelectTurn:  pair("up", "down", "select"),
		ScrollPanel: pair("up", "down", "scroll"),
		SwitchPanel: pair("panel_left", "panel_right", "panel"),
		PanelEnds: key.NewBinding(key.WithKeys(append(slices.Clone(by["home"].Keys), by["end"].Keys...)...),
			key.WithHelp(shortest(by["home"].Keys)+"/"+shortest(by["end"].Keys), "start/end")),
		OpenShort: short("open", "open"), FindShort: short("find", "find"), CopyShort: short("copy", "copy"),
		Find: b("find"), FindNext: b("find_next"), FindPrev: b("find_prev"),
		PrevExchange: b("prev_exchange"), NextExchange: b("next_exchange"), PrevSame: b("prev_same"), NextSame: b("next_same"),
		Copy: b("copy"), CopyCode: b("copy_code"), Select: b("select"),
	}
	k.Pal, k.Ses, k.Box = newBoxesKeys(b)
	k.Complete = key.NewBinding(key.WithKeys(k.FocusNext.Keys()...), key.WithHelp(k.FocusNext.Help().Key, "complete @name"))
	var all []string
	for _, mi := range modes {
		mb := b(prefs.ModePrefix + mi.Name)
		k.Modes = append(k.Modes, mb)
		all = append(all, mb.Keys()...)
	}
	k.ModeKeys = key.NewBinding(key.WithKeys(all...), key.WithHelp(modeKeysLabel(k.Modes), "mode"))
	return k, err
}

// keyNames are how the help writes some keys.
var keyNames = map[string]string{"up": "↑", "down": "↓", "left": "←", "right": "→", "pgdown": "pgdn"}

func keyName(k string) string {
	if n, ok := keyNames[k]; ok {
		return n
	}
	return k
}

// keyLabel is the help's name for a list of keys: one or two of them
// (↑/k; "ctrl+f or /" where one is a slash); the first of a longer list.
func keyLabel(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	if len(keys) > 2 {
		keys = keys[:1]
	}
	sep := "/"
	for _, k := range keys {
		if k == "/" {
			sep = " or "
		}
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = keyName(k)
	}
	return strings.Join(names, sep)
}

// pairLabel names two actions' keys together: ↑↓/kj where each is one
// cell, else both labels.
func pairLabel(a, b []string) string {
	var parts []string
	for i := range min(len(a), len(b), 2) {
		x, y := keyName(a[i]), keyName(b[i])
		if ansi.StringWidth(x) != 1 || ansi.StringWidth(y) != 1 {
			return keyLabel(a) + " " + keyLabel(b)
		}
		parts = append(parts, x+y)
	}
	return strings.Join(parts, "/")
}

// shortest is the shortest name of a list of keys (g of home and g).
func shortest(keys []string) string {
	best := ""
	for _, k := range keys {
		if n := keyName(k); best == "" || ansi.StringWidth(n) < ansi.StringWidth(best) {
			best = n
		}
	}
	return best
}

// modeKeysLabel is the short help's one entry for every mode key:
// alt+1…6 when they are one modifier and the digits in order, alt+1/2/m
// when they share the modifier, else the keys one by one.
func modeKeysLabel(modes []key.Binding) string {
	names := make([]string, len(modes))
	for i, b := range modes {
		names[i] = b.Help().Key
	}
	if len(names) < 2 {
		return strings.Join(names, " ")
	}
	prefix := names[0][:strings.LastIndex(names[0], "+")+1]
	tails, digits := make([]string, len(names)), true
	for i, n := range names {
		tail, ok := strings.CutPrefix(n, prefix)
		if !ok || tail == "" || strings.Contains(tail, "+") {
			return strings.Join(names, " ")
		}
		tails[i], digits = tail, digits && tail == strconv.Itoa(i+1)
	}
	if digits && len(names) > 2 {
		return names[0] + "…" + tails[len(tails)-1]
	}
	return prefix + strings.Join(tails, "/")
}

// ShortHelp implements help.KeyMap: the status line's list, for the focused
// area. The way to the full list and to quitting come early, so that they
// survive the cut of a narrow terminal.
func (k keyMap) ShortHelp() []key.Binding {
	switch k.focus {
	case focusTranscript:
		return []key.Binding{k.SelectTurn, k.OpenShort, k.Help, k.Quit, k.FindShort, k.CopyShort, k.PageUp, k.Home, k.End, k.FocusNext, k.Cancel}
	case focusPanels:
		return []key.Binding{k.ScrollPanel, k.PanelEnds, k.SwitchPanel, k.Help, k.Quit, k.OpenShort, k.CopyShort, k.FocusNext, k.Cancel}
	}
	return []key.Binding{k.Submit, k.Help, k.Quit, k.FocusNext, k.ModeKeys, k.Cancel, k.Palette, k.Sessions}
}

// FullHelp implements help.KeyMap: every binding, by area.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Submit, k.Newline, k.Complete, k.HistoryPrev, k.HistoryNext, k.FocusNext, k.FocusPrev},
		append(slices.Clone(k.Modes), k.CycleMode),
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End, k.Open},
		{k.PrevExchange, k.NextExchange, k.PrevSame, k.NextSame, k.Find, k.FindNext, k.FindPrev, k.Copy, k.CopyCode, k.Select},
		{k.PanelLeft, k.PanelRight, k.PanelEnds, k.Cancel, k.Sessions, k.Palette, k.Help, k.Quit},
		boxRow("palette", k.Pal), boxRow("sessions", k.Ses), boxRow("box", k.Box),
	}
}

// boxRow is a box's keys for the full help, each said to act there.
func boxRow(where string, km help.KeyMap) []key.Binding {
	var row []key.Binding
	for _, b := range km.FullHelp()[0] {
		h := b.Help()
		row = append(row, key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(h.Key, where+": "+h.Desc)))
	}
	return row
}

// forMode adjusts the help of keys whose meaning depends on the mode: in
// one that steps (alternate), once started, Enter on an empty input is the
// next step.
func (k *keyMap) forMode(mi config.ModeInfo, started bool) {
	if mi.StepOnEmpty && started {
		k.Submit.SetHelp(k.Submit.Help().Key, "send (empty: next step)")
		return
	}
	k.Submit.SetHelp(k.Submit.Help().Key, "send")
}

// humanKey writes a key as prose does: Ctrl+P, F1, ?.
func humanKey(k string) string {
	if len(k) <= 1 {
		return k
	}
	mods, base := "", k
	if i := strings.LastIndex(k[:len(k)-1], "+"); i >= 0 {
		mods, base = k[:i+1], k[i+1:]
	}
	var b strings.Builder
	for _, m := range strings.SplitAfter(mods, "+") {
		if m != "" {
			b.WriteString(strings.ToUpper(m[:1]) + m[1:])
		}
	}
	switch {
	case len(base) >= 2 && base[0] == 'f' && strings.Trim(base[1:], "0123456789") == "":
		base = strings.ToUpper(base)
	case mods != "" && len(base) == 1:
		base = strings.ToUpper(base)
	}
	return b.String() + base
}
