package configload

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/modes"
)

// theme: takes a base and colours by role (roles and agents' names, in
// any case, #RGB too) and keeps them as #RRGGBB; colours alone go over
// dark; PARLEY_THEME still names the theme.
func TestThemeColoursLoad(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "theme:\n  base: light\n  colors:\n    Host: \"#063\"\n    chatgpt: \"#0b6e4f\"\n    border: \"#333333\"\n")
	l, err := Load(modes.All(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	th := l.Config.Theme
	if th.Base != "light" || th.Colors["host"] != "#006633" || th.Colors["chatgpt"] != "#0B6E4F" || th.Colors["border"] != "#333333" || len(th.Colors) != 3 {
		t.Fatalf("theme %+v", th)
	}
	path = writeFile(t, "theme:\n  colors:\n    accent: \"#FFAF00\"\n")
	if l, err = Load(modes.All(), path, nil); err != nil || l.Config.Theme.Base != "dark" || l.Config.Theme.Colors["accent"] != "#FFAF00" {
		t.Fatalf("colours without a base: %v %+v", err, l)
	}
	if l, err = Load(modes.All(), "", []string{"PARLEY_THEME=light"}); err != nil || l.Config.Theme.Base != "light" || len(l.Config.Theme.Colors) != 0 {
		t.Fatalf("PARLEY_THEME: %v %+v", err, l)
	}
}

// Every problem of theme: colours names the file and the line of the
// entry at fault: an unknown role (listing the roles), a colour that is
// none, a text colour that does not read on the base (with its ratio), a
// base with no colours of its own.
func TestThemeColoursErrorsNameFileAndLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ body, want string }{
		{"theme:\n  base: dark\n  colors:\n    hots: \"#FFFFFF\"\n", ":4: theme.colors.hots: unknown role (the roles: accent, border, text, muted, rule, warn, error, ok, host, agent, help_key, help_desc, or an agent's name: "},
		{"theme:\n  base: dark\n  colors:\n    host: red\n", `:4: theme.colors.host: "red" is not a colour (write #RRGGBB or #RGB, e.g. #10A37F)`},
		{"theme:\n  base: dark\n  colors:\n    accent: \"#12345G\"\n", `:4: theme.colors.accent: "#12345G" is not a colour`},
		{"theme:\n  base: dark\n  colors:\n    ok: \"#FFF\"\n    host: \"#202020\"\n", ":5: theme.colors.host: #202020 has 1.29:1 against the dark theme's background; text needs 4.5:1"},
		{"theme:\n  base: light\n  colors:\n    chatgpt: \"#10A37F\"\n", ":4: theme.colors.chatgpt: #10A37F has 3.20:1 against the light theme's background; text needs 4.5:1"},
		{"theme:\n  base: high-contrast\n  colors:\n    host: \"#FFFFFF\"\n", `:3: theme.colors: colours are set over base: dark or base: light, not "high-contrast"`},
		{"theme:\n  base: solarized\n", `:2: theme.base: "solarized" is not a theme (auto, dark, light, high-contrast)`},
		{"theme: solarized\n", `:1: theme: "solarized" is not a theme`},
	} {
		path := writeFile(t, c.body)
		_, err := Load(modes.All(), path, nil)
		if err == nil || !strings.Contains(err.Error(), path+c.want) {
			t.Errorf("%q: %v\nwant %s%s", c.body, err, path, c.want)
		}
	}
	// A rule is a line, not text: a dim one is taken.
	path := writeFile(t, "theme:\n  base: dark\n  colors:\n    rule: \"#202020\"\n")
	if _, err := Load(modes.All(), path, nil); err != nil {
		t.Errorf("a dim rule: %v", err)
	}
}

// config show says where theme.base and each colour came from, the theme
// written as a name alone or through PARLEY_THEME included.
func TestThemeValuesShowTheirSource(t *testing.T) {
	t.Parallel()
	source := func(l *Loaded, key string) string {
		for _, v := range l.Values(func(string) string { return "" }) {
			if v.Key == key {
				return fmt.Sprint(v.Value) + " # " + v.Source
			}
		}
		return "(none)"
	}
	path := writeFile(t, "theme:\n  base: light\n  colors:\n    host: \"#063\"\n")
	l, err := Load(modes.All(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := source(l, "theme.colors.host"); got != "#006633 # "+path+":4" {
		t.Errorf("theme.colors.host: %s", got)
	}
	if got := source(l, "theme.base"); got != "light # "+path+":2" {
		t.Errorf("theme.base: %s", got)
	}
	path = writeFile(t, "theme: light\n")
	if l, err = Load(modes.All(), path, nil); err != nil || source(l, "theme.base") != "light # "+path+":1" {
		t.Errorf("theme: light: %v %s", err, source(l, "theme.base"))
	}
	if l, err = Load(modes.All(), "", []string{"PARLEY_THEME=dark"}); err != nil || source(l, "theme.base") != "dark # env PARLEY_THEME" {
		t.Errorf("PARLEY_THEME: %v %s", err, source(l, "theme.base"))
	}
}
