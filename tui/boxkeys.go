package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// paletteKeys are the palette's own keys (keys: remaps them: palette_*),
// its help.KeyMap; the palette's own key (Ctrl+P) closes it too.
type paletteKeys struct {
	Run, Up, Down, PageUp, PageDown, Clear, Close key.Binding
}

// sessionKeys are the session list's own keys (sessions_*); the list's
// own key (Ctrl+S) closes it too, quit quits.
type sessionKeys struct {
	Open, Up, Down, Fork, Delete, Close key.Binding
}

// boxKeys are the keys of a box over the console (one turn in full, the
// help, the agents): box_*; the help's key closes it too, quit quits.
type boxKeys struct {
	Close, Up, Down, PageUp, PageDown, Home, End key.Binding
}

var (
	_ help.KeyMap = paletteKeys{}
	_ help.KeyMap = sessionKeys{}
	_ help.KeyMap = boxKeys{}
)

// newBoxesKeys are the three boxes' keys in force, b giving an action's
// binding by name.
func newBoxesKeys(b func(string) key.Binding) (paletteKeys, sessionKeys, boxKeys) {
	return paletteKeys{
			Run: b("palette_run"), Up: b("palette_up"), Down: b("palette_down"), PageUp: b("palette_page_up"),
			PageDown: b("palette_page_down"), Clear: b("palette_clear"), Close: b("palette_close"),
		}, sessionKeys{
			Open: b("sessions_open"), Up: b("sessions_up"), Down: b("sessions_down"), Fork: b("sessions_fork"),
			Delete: b("sessions_delete"), Close: b("sessions_close"),
		}, boxKeys{
			Close: b("box_close"), Up: b("box_up"), Down: b("box_down"), PageUp: b("box_page_up"),
			PageDown: b("box_page_down"), Home: b("box_home"), End: b("box_end"),
		}
}

// ShortHelp implements help.KeyMap: the palette's hint line.
func (k paletteKeys) ShortHelp() []key.Binding { return []key.Binding{k.Close, k.Run, k.Up, k.Down} }

// FullHelp implements help.KeyMap.
func (k paletteKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Run, k.Up, k.Down, k.PageUp, k.PageDown, k.Clear, k.Close}}
}

// ShortHelp implements help.KeyMap: the session list's hint line.
func (k sessionKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Fork, k.Delete, k.Close}
}

// FullHelp implements help.KeyMap.
func (k sessionKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Open, k.Up, k.Down, k.Fork, k.Delete, k.Close}}
}

// ShortHelp implements help.KeyMap: a box's hint line.
func (k boxKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Close, k.Up, k.Down, k.PageUp, k.PageDown}
}

// FullHelp implements help.KeyMap.
func (k boxKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Close, k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}}
}

// hintLine is a box's hint: its short help's keys in force and what they
// do, "enter run · ↑ choose above · …", as many whole entries as fit in
// width cells (the first always: the way out comes first or second).
func hintLine(km help.KeyMap, width int) string {
	var line string
	for _, b := range km.ShortHelp() {
		desc, _, _ := strings.Cut(b.Help().Desc, " (") // delete (press twice): the hint says it when armed
		part := keyName(b.Keys()[0]) + " " + desc
		if line != "" {
			part = " · " + part
		}
		if line != "" && cellWidth(line+part) > width {
			break
		}
		line += part
	}
	return fitLine(line, width)
}
