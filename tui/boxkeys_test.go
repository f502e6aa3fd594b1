package tui

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/config"
)

// The boxes' keys in force are in the full help (each said to act in its
// box) and in each box's hint; an action left alone keeps its default.
func TestBoxKeysInTheHelp(t *testing.T) {
	t.Parallel()
	k, err := newKeys(testEngine(t, 0).Modes().Infos(), map[string]config.KeyList{
		"palette_down": {"ctrl+d"}, "sessions_fork": {"alt+f"}, "box_page_down": {"ctrl+v"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var full []string
	for _, row := range k.FullHelp() {
		for _, b := range row {
			full = append(full, b.Help().Key+" "+b.Help().Desc)
		}
	}
	all := strings.Join(full, "\n")
	for _, want := range []string{"ctrl+d palette: choose below", "alt+f sessions: fork", "ctrl+v box: page down", "esc box: close", "↑/ctrl+k palette: choose above"} {
		if !strings.Contains(all, want) {
			t.Errorf("the full help lacks %q:\n%s", want, all)
		}
	}
	for hint, want := range map[string]string{
		hintLine(k.Pal, 200): "↓ choose below", hintLine(k.Ses, 200): "· f fork", hintLine(k.Box, 200): "pgdn page down",
	} {
		if strings.Contains(hint, want) {
			t.Errorf("the hint %q still names the default %q", hint, want)
		}
	}
	if h := hintLine(k.Box, 200); !strings.Contains(h, "ctrl+v page down") {
		t.Errorf("the box's hint: %q", h)
	}
	// Narrow: whole entries only, the way out first.
	if h := strings.TrimRight(hintLine(k.Box, 24), " "); h != "esc close · ↑ scroll up" {
		t.Errorf("the box's hint in 24 cells: %q", h)
	}
}
