package prefs

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// maxKeyName bounds a key's name ("ctrl+alt+shift+pgdown" is 21 bytes).
const maxKeyName = 40

// namedKeys are the keys named by a word, as Bubble Tea names them.
var namedKeys = map[string]rune{
	"enter": tea.KeyEnter, "tab": tea.KeyTab, "esc": tea.KeyEscape, "space": tea.KeySpace,
	"backspace": tea.KeyBackspace, "delete": tea.KeyDelete, "insert": tea.KeyInsert,
	"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
	"home": tea.KeyHome, "end": tea.KeyEnd, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
	"f1": tea.KeyF1, "f2": tea.KeyF2, "f3": tea.KeyF3, "f4": tea.KeyF4, "f5": tea.KeyF5, "f6": tea.KeyF6,
	"f7": tea.KeyF7, "f8": tea.KeyF8, "f9": tea.KeyF9, "f10": tea.KeyF10, "f11": tea.KeyF11, "f12": tea.KeyF12,
}

// aliases are names people write for a key Bubble Tea names otherwise.
var aliases = map[string]string{
	"escape": "esc", "return": "enter", "pageup": "pgup", "pagedown": "pgdown", "pgdn": "pgdown",
	"del": "delete", "ins": "insert", "bs": "backspace",
}

var modifiers = []struct {
	name string
	mod  tea.KeyMod
}{{"ctrl", tea.ModCtrl}, {"alt", tea.ModAlt}, {"shift", tea.ModShift}}

// ParseKey reads a key's name as a user writes it ("ctrl+f", "Ctrl+F",
// "shift+tab", "G", "alt+1", "f2", "escape") and returns it as Bubble Tea
// reports it (ctrl+f, esc), with the key press it stands for: the console
// matches and replays keys by that name. Modifiers are ctrl, alt and
// shift, in any case and order; the key is a named one (enter, tab, esc,
// space, backspace, delete, insert, up, down, left, right, home, end,
// pgup, pgdown, f1…f12) or one printable character, whose case counts (G
// is shift+g), but after ctrl (Ctrl+F is ctrl+f).
func ParseKey(name string) (string, tea.KeyPressMsg, error) {
	if len(name) > maxKeyName {
		return "", tea.KeyPressMsg{}, fmt.Errorf("%d bytes is no key's name (at most %d)", len(name), maxKeyName)
	}
	if !utf8.ValidString(name) {
		return "", tea.KeyPressMsg{}, fmt.Errorf("%q is not valid UTF-8", name)
	}
	var k tea.KeyPressMsg
	s := strings.TrimSpace(name)
	for s != "" {
		found := false
		for _, m := range modifiers {
			if len(s) > len(m.name)+1 && strings.EqualFold(s[:len(m.name)+1], m.name+"+") {
				if k.Mod&m.mod != 0 {
					return "", tea.KeyPressMsg{}, fmt.Errorf("%q names %s twice", name, m.name)
				}
				k.Mod, s, found = k.Mod|m.mod, s[len(m.name)+1:], true
			}
		}
		if !found {
			break
		}
	}
	if s == "" {
		return "", tea.KeyPressMsg{}, fmt.Errorf("%q names no key", name)
	}
	word := strings.ToLower(s)
	if a, ok := aliases[word]; ok {
		word = a
	}
	if code, ok := namedKeys[word]; ok {
		k.Code = code
	} else {
		r, size := utf8.DecodeRuneInString(s)
		if size != len(s) {
			return "", tea.KeyPressMsg{}, fmt.Errorf("%q is not a key: write one character, or one of %s, after ctrl+, alt+ or shift+", name, namedList())
		}
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return "", tea.KeyPressMsg{}, fmt.Errorf("%q is not a key: %U does not print (space is written space)", name, r)
		}
		k.Code = r
		switch {
		case k.Mod == tea.ModShift && unicode.IsLetter(r):
			return "", tea.KeyPressMsg{}, fmt.Errorf("%q: write the character shift gives (%s)", name, string(unicode.ToUpper(r)))
		case k.Mod == tea.ModShift:
			return "", tea.KeyPressMsg{}, fmt.Errorf("%q: write the character shift gives (! for shift+1)", name)
		case k.Mod == 0:
			k.Text = s
		case k.Mod&tea.ModCtrl != 0 && unicode.IsUpper(r):
			k.Code = unicode.ToLower(r) // Ctrl+F: terminals report ctrl with the lower-case letter
		}
	}
	return k.String(), k, nil
}

func namedList() string {
	return "enter, tab, esc, space, backspace, delete, insert, up, down, left, right, home, end, pgup, pgdown, f1…f12"
}
