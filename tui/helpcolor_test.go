package tui

import (
	"image/color"
	"math"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// luminance is WCAG's relative luminance of c.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// The key help reads on dark and light terminals: every colour it uses has
// a contrast of at least 4.5:1 (WCAG AA) on the backgrounds of its kind
// (it was #4A4A4A, 2.4:1 on black).
func TestHelpLineContrast(t *testing.T) {
	for _, c := range []struct {
		dark bool
		bgs  []string
	}{
		{true, []string{"#000000", "#1E1E1E", "#282C34", "#300A24"}},
		{false, []string{"#FFFFFF", "#F5F5F5", "#FDF6E3"}},
	} {
		st := helpStyles(c.dark)
		for _, bg := range c.bgs {
			for name, s := range map[string]lipgloss.Style{"key": st.ShortKey, "description": st.ShortDesc, "separator": st.ShortSeparator} {
				if r := contrast(s.GetForeground(), lipgloss.Color(bg)); r < 4.5 {
					t.Errorf("dark %v: the %s colour has %.1f:1 on %s", c.dark, name, r, bg)
				}
			}
		}
	}
}

// The console asks the terminal's background and uses the light help on
// a light one.
func TestHelpFollowsTheBackground(t *testing.T) {
	m := New(testOptions(testEngine(t, 0)))
	if cmd := m.Init(); cmd == nil {
		t.Fatal("no start-up command")
	}
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(tea.BackgroundColorMsg{Color: lipgloss.Color("#FFFFFF")})
	if got, want := m.help.Styles.ShortDesc.GetForeground(), helpStyles(false).ShortDesc.GetForeground(); got != want {
		t.Errorf("on a white background the key help is %v, want %v", got, want)
	}
	m.Update(tea.BackgroundColorMsg{Color: lipgloss.Color("#000000")})
	if got, want := m.help.Styles.ShortDesc.GetForeground(), helpStyles(true).ShortDesc.GetForeground(); got != want {
		t.Errorf("on a black background the key help is %v, want %v", got, want)
	}
}
