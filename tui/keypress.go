package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/tui/prefs"
)

// keyPress is the key press a binding's key name stands for ("ctrl+f",
// "shift+tab", "G", "alt+1"), such that its String() is the name again:
// the palette runs a key through the same handling as when it is typed.
// ok is false for a name that is no key, or not in the form Bubble Tea
// reports it.
func keyPress(name string) (tea.KeyPressMsg, bool) {
	canon, k, err := prefs.ParseKey(name)
	return k, err == nil && canon == name
}
