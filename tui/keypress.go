package tui

import (
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// namedKeys are the keys a binding names by a word.
var namedKeys = map[string]rune{
	"enter": tea.KeyEnter, "tab": tea.KeyTab, "esc": tea.KeyEscape, "space": tea.KeySpace,
	"backspace": tea.KeyBackspace, "delete": tea.KeyDelete, "insert": tea.KeyInsert,
	"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
	"home": tea.KeyHome, "end": tea.KeyEnd, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
	"f1": tea.KeyF1, "f2": tea.KeyF2, "f3": tea.KeyF3, "f4": tea.KeyF4, "f5": tea.KeyF5, "f6": tea.KeyF6,
	"f7": tea.KeyF7, "f8": tea.KeyF8, "f9": tea.KeyF9, "f10": tea.KeyF10, "f11": tea.KeyF11, "f12": tea.KeyF12,
}

// keyPress is the key press a binding's key name stands for ("ctrl+f",
// "shift+tab", "G", "alt+1"), such that its String() is the name again:
// the palette runs a key through the same handling as when it is typed.
// ok is false for a name that is no key.
func keyPress(name string) (tea.KeyPressMsg, bool) {
	var k tea.KeyPressMsg
	s := name
	for _, m := range []struct {
		prefix string
		mod    tea.KeyMod
	}{{"ctrl+", tea.ModCtrl}, {"alt+", tea.ModAlt}, {"shift+", tea.ModShift}} {
		if rest, ok := strings.CutPrefix(s, m.prefix); ok && rest != "" {
			k.Mod, s = k.Mod|m.mod, rest
		}
	}
	if code, ok := namedKeys[s]; ok {
		k.Code = code
		return k, true
	}
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || size != len(s) || r < ' ' || r == 0x7f {
		return tea.KeyPressMsg{}, false
	}
	k.Code = r
	if k.Mod == 0 || k.Mod == tea.ModShift {
		k.Text = s
		k.Mod = 0
	}
	return k, k.String() == name
}
