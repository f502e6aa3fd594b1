package tui

import (
	"fmt"
	"image/color"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/parleyhq/parley/tui/prefs"
)

// hexOf writes a colour as #RRGGBB (nil: "").
func hexOf(c color.Color) string {
	if c == nil {
		return ""
	}
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// Each role of theme: {colors: …} colours what docs/console.md says it
// does, the others keep the base's; an agent's name overrides its own
// colour; a light accent takes black text on the active tab.
func TestThemeColoursByRole(t *testing.T) {
	set := map[string]string{
		"accent": "#FFD75F", "border": "#5FD7FF", "text": "#EEEEEE", "muted": "#AFAFAF", "rule": "#303030",
		"warn": "#FFFF00", "error": "#FF5F5F", "ok": "#5FFF5F", "host": "#FFAF00", "agent": "#D7AFFF",
		"help_key": "#FFFFFF", "help_desc": "#C0C0C0", "chatgpt": "#10A37F",
	}
	th := newThemeWith(prefs.ThemeDark, set)
	for role, got := range map[string]color.Color{
		"accent": inkColour(th.selected), "border": inkColour(th.box), "text": inkColour(th.title),
		"muted": inkColour(th.status), "rule": inkColour(th.subtle), "warn": inkColour(th.warn),
		"error": inkColour(th.err), "ok": inkColour(th.ok), "host": inkColour(th.user),
		"agent": inkColour(th.agent("", false, false)), "help_key": th.help.ShortKey.GetForeground(),
		"help_desc": th.help.ShortDesc.GetForeground(), "chatgpt": inkColour(th.agent(th.agentColour("chatgpt", "#000000"), false, false)),
	} {
		if hexOf(got) != set[role] {
			t.Errorf("%s: %s, want %s", role, hexOf(got), set[role])
		}
	}
	if own := th.agentColour("claude", "#D97757"); own != "#D97757" {
		t.Errorf("an agent not set keeps its colour: %s", own)
	}
	if got := inkColour(th.tabActive); hexOf(got) != "#000000" {
		t.Errorf("a light accent's tab text: %s, want black", hexOf(got))
	}
	if _, bg := sgrColours(th.tabActive.pre, nil, nil); hexOf(bg) != "#FFD75F" {
		t.Errorf("the active tab's background: %s", hexOf(bg))
	}
	plain := newTheme(prefs.ThemeDark)
	if hexOf(inkColour(plain.tabActive)) != "#FFFFFF" || hexOf(inkColour(plain.user)) != hexOf(lipgloss.Color(darkColours.user)) {
		t.Errorf("the dark theme's own colours changed: %s %s", hexOf(inkColour(plain.tabActive)), hexOf(inkColour(plain.user)))
	}
	// An unset role keeps the base's.
	partial := newThemeWith(prefs.ThemeLight, map[string]string{"host": "#8700AF"})
	if hexOf(inkColour(partial.err)) != lightColours.err || hexOf(inkColour(partial.user)) != "#8700AF" {
		t.Errorf("light with host set: error %s host %s", hexOf(inkColour(partial.err)), hexOf(inkColour(partial.user)))
	}
}

// The golden screen of custom colours at 100×30 (an @all exchange
// answered): the status line, ChatGPT's panel, the rules and the active
// tab are drawn in the colours set.
func TestThemeColoursScreen(t *testing.T) {
	t.Parallel()
	set := map[string]string{"muted": "#B2B2B2", "chatgpt": "#5FD7FF", "rule": "#5F0000", "accent": "#FFD75F"}
	s := answeredScreenWith(t, func(o *Options) { o.Theme, o.Colours = prefs.ThemeDark, set }, 100, 30, true)
	checkScreen(t, ansi.Strip(s), 100, 30)
	for role, sgr := range map[string]string{"muted": "38;2;178;178;178m", "chatgpt": "38;2;95;215;255m", "rule": "38;2;95;0;0m", "accent": "48;2;255;215;95m"} {
		if !strings.Contains(s, sgr) {
			t.Errorf("%s: no %q on the screen", role, sgr)
		}
	}
	golden.RequireEqual(t, s)
}
