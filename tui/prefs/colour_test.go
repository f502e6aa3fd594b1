package prefs

import (
	"errors"
	"strings"
	"testing"
)

func TestParseColour(t *testing.T) {
	for in, want := range map[string]string{"#10a37f": "#10A37F", "#FFF": "#FFFFFF", " #0b6 ": "#00BB66", "#000000": "#000000"} {
		if got, _, _, _, err := ParseColour(in); err != nil || got != want {
			t.Errorf("ParseColour(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "red", "10A37F", "#10A37", "#10A37FF", "#GGG", "#+12345", "#-12345", "#1_2345", "# 12345", "#0x1234", strings.Repeat("#", 40)} {
		if got, _, _, _, err := ParseColour(in); err == nil {
			t.Errorf("ParseColour(%q) = %q; want an error", in, got)
		}
	}
}

func TestCheckColours(t *testing.T) {
	agents := []string{"chatgpt", "claude"}
	got, err := CheckColours(ThemeDark, map[string]string{"ChatGPT": "#10A37F", "rule": "#222", "host": "#ffaf00"}, agents)
	if err != nil || got["chatgpt"] != "#10A37F" || got["rule"] != "#222222" || got["host"] != "#FFAF00" {
		t.Fatalf("%v %v", got, err)
	}
	for _, c := range []struct {
		base    string
		colours map[string]string
		role    string
		text    string
	}{
		{ThemeDark, map[string]string{"bogus": "#FFF"}, "bogus", "unknown role (the roles: accent, border"},
		{ThemeDark, map[string]string{"host": "#12"}, "host", "is not a colour"},
		{ThemeDark, map[string]string{"claude": "#000080"}, "claude", "#000080 has 1.31:1 against the dark theme's background"},
		{ThemeLight, map[string]string{"muted": "#999999"}, "muted", "#999999 has 2.85:1 against the light theme's background"},
		{ThemeAuto, map[string]string{"muted": "#999999"}, "", "base: dark or base: light, not \"auto\""},
	} {
		_, err := CheckColours(c.base, c.colours, agents)
		var p *ColourProblem
		if !errors.As(err, &p) || p.Role != c.role || !strings.Contains(p.Text, c.text) {
			t.Errorf("%s %v: %v; want role %q, %q", c.base, c.colours, err, c.role, c.text)
		}
	}
	// The bound: colours past a few dozen are refused.
	many := map[string]string{}
	for i := range maxColours + 1 {
		many[strings.Repeat("a", i+1)] = "#FFF"
	}
	if _, err := CheckColours(ThemeDark, many, nil); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("too many colours: %v", err)
	}
}

// FuzzCheckColours: whatever the role and the colour, CheckColours gives
// colours or a problem naming the role; a colour it keeps is #RRGGBB that
// parses to itself, and a text colour it keeps reads on the base.
func FuzzCheckColours(f *testing.F) {
	for _, s := range [][2]string{{"host", "#FFF"}, {"chatgpt", "#10A37F"}, {"rule", "#000"}, {"HOST", " #abcdef"}, {"x", "red"}, {"accent", "#\x00\x00\x00"}} {
		f.Add(s[0], s[1], true)
	}
	f.Fuzz(func(t *testing.T, role, colour string, dark bool) {
		base := ThemeLight
		if dark {
			base = ThemeDark
		}
		got, err := CheckColours(base, map[string]string{role: colour}, []string{"chatgpt"})
		if err != nil {
			var p *ColourProblem
			if !errors.As(err, &p) || p.Role != role || got != nil {
				t.Fatalf("%q %q: %v, %v", role, colour, got, err)
			}
			return
		}
		if len(got) != 1 {
			t.Fatalf("%q %q: %v", role, colour, got)
		}
		for name, hex := range got {
			again, r, g, b, err := ParseColour(hex)
			if err != nil || again != hex || len(hex) != 7 {
				t.Fatalf("%q %q: kept %q, parses to %q, %v", role, colour, hex, again, err)
			}
			bg := 0.0
			if !dark {
				bg = 1
			}
			if name != "rule" && Contrast(Luminance(r, g, b), bg) < MinContrast {
				t.Fatalf("%q %q: %s kept, does not read on %s", role, colour, hex, base)
			}
		}
	})
}
