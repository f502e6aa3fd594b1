package prefs

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseKey(t *testing.T) {
	for in, want := range map[string]string{
		"ctrl+f": "ctrl+f", "Ctrl+F": "ctrl+f", "CTRL+f": "ctrl+f", "shift+tab": "shift+tab", "G": "G", "g": "g",
		"alt+1": "alt+1", "f2": "f2", "escape": "esc", "Esc": "esc", "pgdn": "pgdown", "PageUp": "pgup",
		"alt+ctrl+x": "ctrl+alt+x", "shift+alt+enter": "alt+shift+enter", "space": "space", "?": "?", "/": "/",
		"[": "[", "+": "+", "ctrl++": "ctrl++", "é": "é", " y ": "y", "alt+G": "alt+G", "ctrl+G": "ctrl+g",
	} {
		got, k, err := ParseKey(in)
		if err != nil || got != want || k.String() != want {
			t.Errorf("ParseKey(%q) = %q (press %q), %v; want %q", in, got, k.String(), err, want)
		}
	}
	for in, why := range map[string]string{
		"":                      "names no key",
		"ctrl+":                 "is not a key",
		"ctl+y":                 "is not a key",
		"ctrl+ctrl+y":           "twice",
		"shift+g":               "(G)",
		"shift+1":               "shift gives",
		"enterr":                "is not a key",
		"\x1b[A":                "is not a key",
		"\x07":                  "does not print",
		"\xff":                  "UTF-8",
		" ":                     "names no key",
		strings.Repeat("a", 41): "bytes",
	} {
		if got, _, err := ParseKey(in); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseKey(%q) = %q, %v; want an error with %q", in, got, err, why)
		}
	}
}

// FuzzParseKey: whatever the text, ParseKey returns a name or an error,
// and a name it returns parses again to itself, and is the name of the key
// press it returned (so the console's matching and replay agree).
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"ctrl+f", "Shift+Tab", "G", "alt+ctrl+x", "ctrl++", "+", "escape", "f12", "ctrl+", "é", "\x00", "shift+shift+a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, k, err := ParseKey(s)
		if err != nil {
			if name != "" {
				t.Fatalf("%q: an error and a name %q", s, name)
			}
			return
		}
		if !utf8.ValidString(name) || name == "" || k.String() != name {
			t.Fatalf("%q: name %q, press %q", s, name, k.String())
		}
		again, _, err := ParseKey(name)
		if err != nil || again != name {
			t.Fatalf("%q: %q parses to %q, %v", s, name, again, err)
		}
	})
}

func modes() []Action {
	return append(Actions(), Mode("mention", "alt+1"), Mode("magi", "alt+4"))
}

// The defaults share no key where two actions meet, and keep their keys.
func TestDefaultsHaveNoConflict(t *testing.T) {
	got, err := Resolve[[]string](modes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := conflict(got, allSet(got)); p != nil {
		t.Fatalf("the defaults conflict: %v", p)
	}
	for _, a := range got {
		for _, k := range a.Keys {
			if canon, _, err := ParseKey(k); err != nil || canon != k {
				t.Errorf("%s: default key %q parses to %q, %v", a.Name, k, canon, err)
			}
		}
	}
}

func allSet(actions []Action) map[string]bool {
	set := map[string]bool{}
	for _, a := range actions {
		set[a.Name] = true
	}
	return set
}

func keysOf(t *testing.T, actions []Action, name string) string {
	t.Helper()
	for _, a := range actions {
		if a.Name == name {
			return strings.Join(a.Keys, ",")
		}
	}
	t.Fatalf("no action %s", name)
	return ""
}

func TestResolve(t *testing.T) {
	got, err := Resolve(modes(), map[string][]string{
		"copy":       {"c", "ctrl+y"},
		"find_next":  {"Enter", "n", "n"},
		"mode_magi":  {"alt+m"},
		"panel_left": {"["}, // [ is the transcript's previous exchange: the panels may have it
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"copy": "c,ctrl+y", "find_next": "enter,n", "mode_magi": "alt+m", "copy_code": "Y", "panel_left": "["} {
		if k := keysOf(t, got, name); k != want {
			t.Errorf("%s: %s, want %s", name, k, want)
		}
	}
	for _, c := range []struct {
		keys         map[string][]string
		action       string
		index        int
		other        string
		otherSet     bool
		unknown      bool
		text, string string
	}{
		{keys: map[string][]string{"cpy": {"c"}}, action: "cpy", index: -1, unknown: true, text: "unknown action"},
		{keys: map[string][]string{"copy": {}}, action: "copy", index: -1, text: "needs a key"},
		{keys: map[string][]string{"copy": {"c", "ctl+c"}}, action: "copy", index: 1, text: "is not a key"},
		{keys: map[string][]string{"copy": strings.Fields("a b c d e f g h i")}, action: "copy", index: -1, text: "at most 8"},
		// j is the transcript's next turn.
		{keys: map[string][]string{"copy": {"j"}}, action: "copy", other: "down", text: "j is also the key of down (next turn), both in the transcript"},
		// Both set, on one key, in the panels.
		{keys: map[string][]string{"copy": {"x"}, "panel_right": {"x"}}, action: "copy", other: "panel_right", otherSet: true, text: "both in the panels"},
		// A global key takes the key everywhere.
		{keys: map[string][]string{"submit": {"ctrl+p"}}, action: "submit", other: "palette", text: "one everywhere, the other in the input"},
		{keys: map[string][]string{"find_next": {"ctrl+s"}}, action: "find_next", other: "sessions", text: "ctrl+s is also the key of sessions"},
		{keys: map[string][]string{"mode_magi": {"alt+1"}}, action: "mode_magi", other: "mode_mention", text: "both everywhere"},
	} {
		_, err := Resolve(modes(), c.keys)
		var p *Problem
		if !errors.As(err, &p) {
			t.Errorf("%v: %v, want a problem", c.keys, err)
			continue
		}
		if p.Action != c.action || p.Index != c.index || p.Other != c.other || p.OtherSet != c.otherSet || p.Unknown != c.unknown || !strings.Contains(p.Text, c.text) {
			t.Errorf("%v: %+v, want action %s index %d other %s (set %v) unknown %v text %q", c.keys, *p, c.action, c.index, c.other, c.otherSet, c.unknown, c.text)
		}
	}
	// Two actions that never meet may share a key: the input's submit and
	// the transcript's open are both enter; find_next and copy both n.
	if _, err := Resolve(modes(), map[string][]string{"copy": {"n"}, "open": {"enter", "o"}}); err != nil {
		t.Errorf("keys of actions that never meet: %v", err)
	}
}
