package prefs

import (
	"errors"
	"strings"
	"testing"
)

// The palette's, the session list's and the turn box's own keys are
// actions too: remapped, checked for conflicts within their box (where
// the keys everywhere do not act, but quit, the box's own toggle and the
// help that close it), and in the palette never a key that types.
func TestBoxKeysResolve(t *testing.T) {
	got, err := Resolve(modes(), map[string][]string{
		"palette_down":  {"ctrl+d"},
		"sessions_fork": {"/"}, // find's key, but find does not act in the list
		"box_close":     {"x"},
		"box_down":      {"n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"palette_down": "ctrl+d", "sessions_fork": "/", "box_close": "x", "box_down": "n", "box_up": "up,k"} {
		if k := keysOf(t, got, name); k != want {
			t.Errorf("%s: %s, want %s", name, k, want)
		}
	}
	for _, c := range []struct {
		keys  map[string][]string
		other string
		text  string
	}{
		{map[string][]string{"sessions_fork": {"d"}}, "sessions_delete", "d is also the key of sessions_delete (delete (press twice)), both in the session list"},
		{map[string][]string{"sessions_fork": {"ctrl+c"}}, "quit", "both in the session list"},
		{map[string][]string{"sessions_up": {"ctrl+s"}}, "sessions", "both in the session list"},
		{map[string][]string{"palette_up": {"ctrl+p"}}, "palette", "both in the palette"},
		{map[string][]string{"box_down": {"?"}}, "help", "both in the turn box"},
		{map[string][]string{"box_home": {"G"}}, "box_end", "both in the turn box"},
		{map[string][]string{"palette_run": {"x"}}, "", "x types into the palette's query"},
		{map[string][]string{"palette_clear": {"space"}}, "", "space types into the palette's query"},
	} {
		_, err := Resolve(modes(), c.keys)
		var p *Problem
		if !errors.As(err, &p) || p.Other != c.other || !strings.Contains(p.Text, c.text) {
			t.Errorf("%v: %v; want other %q, %q", c.keys, err, c.other, c.text)
		}
	}
}
