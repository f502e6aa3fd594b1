package tui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/parleyhq/parley/debate"
)

// modeBindings are the mode keys, read from the engine's mode list.
func modeBindings(modes []debate.ModeInfo) []key.Binding {
	var out []key.Binding
	for _, mi := range modes {
		out = append(out, key.NewBinding(key.WithKeys(mi.Key), key.WithHelp(mi.Key, mi.Name+" mode")))
	}
	return out
}

// modeKeysHelp is the short help's one entry for every mode key.
func modeKeysHelp(modes []debate.ModeInfo) key.Binding {
	var keys []string
	for _, mi := range modes {
		keys = append(keys, mi.Key)
	}
	help := "alt+1…" + strings.TrimPrefix(keys[len(keys)-1], "alt+")
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, "mode"))
}

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

	focus focusArea // what the short list describes
}

func defaultKeys(modes []debate.ModeInfo) keyMap {
	return keyMap{
		Submit:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Newline:      key.NewBinding(key.WithKeys("alt+enter", "shift+enter", "ctrl+j"), key.WithHelp("alt+enter", "new line")),
		Complete:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete @name")),
		FocusNext:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "focus next")),
		FocusPrev:    key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "focus previous")),
		ModeKeys:     modeKeysHelp(modes),
		Modes:        modeBindings(modes),
		CycleMode:    key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "next mode")),
		Cancel:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel / close")),
		Sessions:     key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "sessions")),
		Palette:      key.NewBinding(key.WithKeys("ctrl+p"), key.WithHelp("ctrl+p", "commands")),
		Help:         key.NewBinding(key.WithKeys("?", "f1"), key.WithHelp("?/f1", "all keys")),
		Quit:         key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel/quit")),
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous turn")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next turn")),
		PageUp:       key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Home:         key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "first turn")),
		End:          key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "last turn")),
		Open:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open turn")),
		HistoryPrev:  key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous input")),
		HistoryNext:  key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next input")),
		PanelLeft:    key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "previous panel")),
		PanelRight:   key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next panel")),
		SelectTurn:   key.NewBinding(key.WithKeys("up", "down", "k", "j"), key.WithHelp("↑↓/jk", "select")),
		ScrollPanel:  key.NewBinding(key.WithKeys("up", "down", "k", "j"), key.WithHelp("↑↓/jk", "scroll")),
		SwitchPanel:  key.NewBinding(key.WithKeys("left", "right", "h", "l"), key.WithHelp("←→/hl", "panel")),
		PanelEnds:    key.NewBinding(key.WithKeys("home", "end", "g", "G"), key.WithHelp("g/G", "start/end")),
		OpenShort:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		FindShort:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "find")),
		CopyShort:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy")),
		Find:         key.NewBinding(key.WithKeys("ctrl+f", "/"), key.WithHelp("ctrl+f or /", "find in the transcript")),
		FindNext:     key.NewBinding(key.WithKeys("enter", "n"), key.WithHelp("enter/n", "next match")),
		Copy:         key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy the turn (Markdown)")),
		CopyCode:     key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy its last code block")),
		Select:       key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "select mode (frees the mouse)")),
		PrevExchange: key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous exchange")),
		NextExchange: key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next exchange")),
		PrevSame:     key.NewBinding(key.WithKeys("{"), key.WithHelp("{", "previous turn of this speaker")),
		NextSame:     key.NewBinding(key.WithKeys("}"), key.WithHelp("}", "next turn of this speaker")),
		FindPrev:     key.NewBinding(key.WithKeys("shift+enter", "N"), key.WithHelp("shift+enter/N", "previous match")),
	}
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
	}
}

// forMode adjusts the help of keys whose meaning depends on the mode: in
// one that steps (alternate), once started, Enter on an empty input is the
// next step.
func (k *keyMap) forMode(mi debate.ModeInfo, started bool) {
	if mi.StepOnEmpty && started {
		k.Submit.SetHelp("enter", "send (empty: next step)")
		return
	}
	k.Submit.SetHelp("enter", "send")
}
