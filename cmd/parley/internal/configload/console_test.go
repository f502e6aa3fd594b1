package configload

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/modes"
)

// theme: and keys: load into the configuration: one key alone or a list
// (a comma is a key, not a separator), any case of the modifiers; theme
// from a PARLEY_ variable too.
func TestConsoleThemeAndKeysLoad(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "theme: light\nkeys:\n  copy: c\n  find_next: [Ctrl+N, \",\"]\n  mode_magi: alt+m\n")
	l, err := Load(modes.All(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := l.Config
	if cfg.Theme.Base != "light" || strings.Join(cfg.Keys["copy"], " ") != "c" || strings.Join(cfg.Keys["find_next"], " ") != "Ctrl+N ," || strings.Join(cfg.Keys["mode_magi"], " ") != "alt+m" {
		t.Fatalf("theme %q keys %q", cfg.Theme, cfg.Keys)
	}
	l, err = Load(modes.All(), "", []string{"PARLEY_THEME=high-contrast"})
	if err != nil || l.Config.Theme.Base != "high-contrast" {
		t.Fatalf("PARLEY_THEME: %v, %+v", err, l)
	}
}

// Every problem of theme: or keys: is an error naming the file and the
// line of the key at fault; two actions on one key name both lines (or
// say the other key is a default).
func TestConsoleKeysErrorsNameFileAndLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ body, want string }{
		{"theme: solarized\n", `:1: theme: "solarized" is not a theme (auto, dark, light, high-contrast)`},
		{"keys:\n  cpy: c\n", ":2: keys.cpy: unknown action (did you mean copy?)"},
		{"keys:\n  copy: ctl+c\n", `:2: keys.copy: "ctl+c" is not a key`},
		{"keys:\n  copy:\n    - c\n    - shift+y\n", `:4: keys.copy[1]: "shift+y": write the character shift gives (Y)`},
		{"keys:\n  copy: []\n", ":2: keys.copy: needs a key"},
		{"theme: dark\nkeys:\n  copy: j\n", ":3: keys.copy: j is also the key of down (next turn), both in the transcript (its default key; give down another under keys: to free it)"},
		{"keys:\n  copy: x\n  panel_right: x\n", ":2: keys.copy: x is also the key of panel_right (next panel), both in the panels (keys.panel_right is set at "},
		{"keys:\n  submit: ctrl+p\n", ":2: keys.submit: ctrl+p is also the key of palette (commands), one everywhere, the other in the input (the one everywhere wins)"},
		{"keys:\n  mode_magi: alt+1\n", ":2: keys.mode_magi: alt+1 is also the key of mode_mention (mention mode), both everywhere"},
	} {
		path := writeFile(t, c.body)
		_, err := Load(modes.All(), path, nil)
		if err == nil || !strings.Contains(err.Error(), path+c.want) {
			t.Errorf("%q: %v\nwant %s%s", c.body, err, path, c.want)
		}
	}
	// Both lines of two actions set on one key.
	path := writeFile(t, "keys:\n  copy: x\n  panel_right: x\n")
	if _, err := Load(modes.All(), path, nil); err == nil || !strings.HasSuffix(err.Error(), "set at "+path+":3)") {
		t.Errorf("the other action's line: %v", err)
	}
	// From a variable (over a key the file sets): the variable is named.
	path = writeFile(t, "keys:\n  copy: c\n")
	if _, err := Load(modes.All(), path, []string{"PARLEY_KEYS_COPY=ctl+x"}); err == nil || !strings.Contains(err.Error(), `environment variable PARLEY_KEYS_COPY="ctl+x" (keys.copy)`) {
		t.Errorf("a variable's bad key: %v", err)
	}
}
