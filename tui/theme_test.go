package tui

import (
	"github.com/parleyhq/parley/tui/prefs"

	"image/color"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// lum is WCAG's relative luminance of c.
func lum(c color.Color) float64 { return luminance(rgb(c)) }

// inkColour is the foreground an ink sets (nil: none).
func inkColour(k ink) color.Color {
	fg, _ := sgrColours(k.pre, nil, nil)
	return fg
}

// sgrColours applies the colours an SGR sequence (or several) sets to fg
// and bg: 38/48 in 256 or true colour, 39/49 and resets clear them.
func sgrColours(seqs string, fg, bg color.Color) (color.Color, color.Color) {
	for _, m := range sgrSeq.FindAllStringSubmatch(seqs, -1) {
		ps := strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' })
		if len(ps) == 0 {
			fg, bg = nil, nil
		}
		for i := 0; i < len(ps); i++ {
			n, _ := strconv.Atoi(ps[i])
			switch {
			case n == 0:
				fg, bg = nil, nil
			case n == 39:
				fg = nil
			case n == 49:
				bg = nil
			case (n == 38 || n == 48) && i+1 < len(ps):
				var c color.Color
				if ps[i+1] == "5" && i+2 < len(ps) {
					v, _ := strconv.Atoi(ps[i+2])
					c, i = ansi.IndexedColor(v), i+2
				} else if ps[i+1] == "2" && i+4 < len(ps) {
					r, _ := strconv.Atoi(ps[i+2])
					g, _ := strconv.Atoi(ps[i+3])
					b, _ := strconv.Atoi(ps[i+4])
					c, i = color.RGBA{uint8(r), uint8(g), uint8(b), 0xff}, i+4
				}
				if n == 38 {
					fg = c
				} else {
					bg = c
				}
			case n >= 30 && n <= 37, n >= 90 && n <= 97:
				fg = ansi.BasicColor(n % 10)
			}
		}
	}
	return fg, bg
}

var sgrSeq = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// textInks are the theme's inks that colour text (the subtle rules are
// lines, not text).
func textInks(th *theme) map[string]ink {
	return map[string]ink{
		"tabIdle": th.tabIdle, "title": th.title, "muted": th.muted, "mutedBold": th.mutedBold,
		"warn": th.warn, "warnBold": th.warnBold, "err": th.err, "errBold": th.errBold,
		"ok": th.ok, "okBold": th.okBold, "status": th.status, "selected": th.selected,
		"user": th.user, "box": th.box,
	}
}

// Every text colour of the dark and light themes reads on its background
// (4.5:1, WCAG AA, against black and white), the agents' colours of the
// default configuration included (made readable where they were not), and
// the key help on the usual backgrounds of its kind (it was #4A4A4A, 2.4:1
// on black).
func TestThemeTextContrast(t *testing.T) {
	cfg := testConfig(t)
	for _, c := range []struct {
		name string
		bgs  []string
	}{
		{prefs.ThemeDark, []string{"#000000", "#1E1E1E", "#282C34", "#300A24"}},
		{prefs.ThemeLight, []string{"#FFFFFF", "#F5F5F5", "#FDF6E3"}},
	} {
		th := newTheme(c.name)
		inks := textInks(th)
		for _, a := range cfg.Agents {
			inks["agent "+a.Name] = th.agent(a.Color, false, false)
		}
		inks["agent without a colour"] = th.agent("", false, false)
		bg := lipgloss.Color(c.bgs[0])
		for name, k := range inks {
			fg := inkColour(k)
			if fg == nil {
				t.Errorf("%s: %s has no colour", c.name, name)
				continue
			}
			if r := contrast(lum(fg), lum(bg)); r < minContrast {
				t.Errorf("%s: %s has %.2f:1 on %s", c.name, name, r, c.bgs[0])
			}
		}
		for _, bg := range c.bgs {
			for name, s := range map[string]lipgloss.Style{"key": th.help.ShortKey, "description": th.help.ShortDesc, "separator": th.help.ShortSeparator} {
				if r := contrast(lum(s.GetForeground()), lum(lipgloss.Color(bg))); r < minContrast {
					t.Errorf("%s: the key help's %s colour has %.1f:1 on %s", c.name, name, r, bg)
				}
			}
		}
	}
	// Reverse banners put the terminal's background on the colour.
	for _, name := range []string{prefs.ThemeDark, prefs.ThemeLight} {
		th := newTheme(name)
		bg := color.Color(color.White)
		if th.dark {
			bg = color.Black
		}
		for what, k := range map[string]ink{"ok": th.okBanner, "error": th.errBanner, "warning": th.warnBanner} {
			if r := contrast(lum(inkColour(k)), lum(bg)); r < minContrast {
				t.Errorf("%s: the %s banner has %.2f:1", name, what, r)
			}
		}
	}
}

// readable leaves a colour that reads alone and moves one that does not.
func TestReadableAgentColours(t *testing.T) {
	for _, c := range []struct {
		hex     string
		dark    bool
		changed bool
	}{
		{"#4285F4", true, false},
		{"#EAB308", false, true},  // yellow on white: 2.0:1
		{"#FACC15", false, true},  // 1.5:1
		{"#7C3AED", true, true},   // purple on black: 3.7:1
		{"#10A37F", false, true},  // 3.4:1 on white
		{"#262626", false, false}, // already dark
	} {
		in := lipgloss.Color(c.hex)
		out := readable(in, c.dark)
		bg := 1.0
		if c.dark {
			bg = 0
		}
		if r := contrast(lum(out), bg); r < minContrast {
			t.Errorf("%s (dark %v): %.2f:1 after", c.hex, c.dark, r)
		}
		if changed := !reflect.DeepEqual(rgbOf(in), rgbOf(out)); changed != c.changed {
			t.Errorf("%s (dark %v): changed %v, want %v", c.hex, c.dark, changed, c.changed)
		}
	}
}

func rgbOf(c color.Color) [3]int {
	r, g, b := rgb(c)
	return [3]int{int(r * 255), int(g * 255), int(b * 255)}
}

// In auto the console asks the terminal's background, draws no frame until
// it answers (or themeWait passes), and takes the light theme on a light
// one; an answer after the wait changes nothing, and an explicit theme
// asks nothing.
func TestThemeFollowsTheBackground(t *testing.T) {
	auto := func(t *testing.T) Options {
		o := testOptions(testEngine(t, 0))
		o.Theme = prefs.ThemeAuto
		return o
	}
	t.Run("light answer", func(t *testing.T) {
		m := New(auto(t))
		m.Init()
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		if !m.themeAsked || m.View().Content != "" {
			t.Fatalf("a frame was drawn before the terminal said its background: %q", m.View().Content)
		}
		m.Update(tea.BackgroundColorMsg{Color: lipgloss.Color("#FAFAFA")})
		if m.th.name != prefs.ThemeLight || m.md.th != m.th || m.help.Styles.ShortDesc.GetForeground() != lipgloss.Color(lightColours.helpDesc) {
			t.Errorf("on a light background the theme is %s", m.th.name)
		}
		if m.View().Content == "" {
			t.Error("no frame after the answer")
		}
		m.Update(tea.BackgroundColorMsg{Color: lipgloss.Color("#000000")})
		if m.th.name != prefs.ThemeLight {
			t.Errorf("a second answer changed the theme to %s", m.th.name)
		}
	})
	t.Run("no answer", func(t *testing.T) {
		m := New(auto(t))
		m.Init()
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		m.Update(themeWaitOver{})
		if m.View().Content == "" || m.th.name != prefs.ThemeDark {
			t.Fatalf("after the wait: theme %s, frame %q", m.th.name, m.View().Content)
		}
		m.Update(tea.BackgroundColorMsg{Color: lipgloss.Color("#FFFFFF")})
		if m.th.name != prefs.ThemeDark {
			t.Errorf("a late answer changed the theme to %s", m.th.name)
		}
	})
	for _, name := range []string{prefs.ThemeDark, prefs.ThemeHighContrast} {
		t.Run(name, func(t *testing.T) {
			o := testOptions(testEngine(t, 0))
			o.Theme = name
			m := New(o)
			m.Init()
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
			if m.themeAsked || m.View().Content == "" {
				t.Fatalf("an explicit theme waited for the terminal")
			}
			m.Update(tea.BackgroundColorMsg{Color: lipgloss.Color("#FFFFFF")})
			if m.th.name != name {
				t.Errorf("theme %s became %s on an answer", name, m.th.name)
			}
		})
	}
}

// colourOutsideTheme finds what writes a colour in the console's code.
var colourOutsideTheme = regexp.MustCompile(`lipgloss\.Color\(|(Fore|Back)ground\(lipgloss|Style\(\)\.(Fore|Back)ground\(|"#[0-9A-Fa-f]{6}"|\\x1b\[[0-9;]*[34]8;|DarkStyleConfig|LightStyleConfig`)

// Every style of the console comes from the theme: no other file of the
// package writes a colour.
func TestNoColourOutsideTheTheme(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "theme.go" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for i, line := range strings.Split(string(data), "\n") {
			if code, _, _ := strings.Cut(line, "//"); colourOutsideTheme.MatchString(code) {
				t.Errorf("%s:%d writes a colour outside the theme: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d files checked", checked)
	}
}

// answeredScreen runs an @all exchange in theme at w×h and returns the
// styled frame; still, without the input's blinking cursor (goldens).
func answeredScreen(t *testing.T, theme string, w, h int, still bool) string {
	t.Helper()
	return answeredScreenWith(t, func(o *Options) { o.Theme = theme }, w, h, still)
}

// answeredScreenWith is answeredScreen with the options set changed.
func answeredScreenWith(t *testing.T, set func(*Options), w, h int, still bool) string {
	t.Helper()
	o := screenOptions(testEngine(t, 0))
	set(&o)
	m := New(o)
	tm := start(t, m, w, h)
	typeLine(tm, modeInputs["mention"][0])
	waitFor(t, tm, "the exchange to end", func(m *Model) bool { return idle(m) && m.tr.Len() > 1 && m.status != "" })
	var s string
	probe(t, tm, func(m *Model) {
		if still {
			m.in.ta.Blur()
			m.in.dirty = true
		}
		s = strings.Join(m.frame(), "\n") + "\n"
	})
	return s
}

// The high-contrast theme draws no colour at all, the agents' and the
// Markdown's included, and still marks what the others mark.
func TestHighContrastHasNoColour(t *testing.T) {
	t.Parallel()
	s := answeredScreen(t, prefs.ThemeHighContrast, 100, 30, false)
	attrs := map[string]bool{}
	for i, l := range strings.Split(s, "\n") {
		for _, m := range sgrSeq.FindAllStringSubmatch(l, -1) {
			if f, b := sgrColours(m[0], nil, nil); f != nil || b != nil {
				t.Fatalf("row %d has a colour (%q): %q", i, m[0], l)
			}
			for _, p := range strings.Split(m[1], ";") {
				attrs[p] = true
			}
		}
	}
	if !attrs["1"] || !attrs["7"] {
		t.Errorf("no bold or no reverse either (%v): %q", attrs, s)
	}
}

// On the light theme no text is drawn in a colour made for a dark
// background: every coloured character reads on white (3:1 at least,
// what the Markdown's own light style keeps), and the other way round.
func TestThemeScreensRead(t *testing.T) {
	for _, c := range []struct {
		theme string
		bg    color.Color
	}{{prefs.ThemeLight, color.White}, {prefs.ThemeDark, color.Black}} {
		t.Run(c.theme, func(t *testing.T) {
			t.Parallel()
			s := answeredScreen(t, c.theme, 100, 30, false)
			coloured := 0
			for i, row := range strings.Split(s, "\n") {
				var fg, bg color.Color
				for row != "" {
					loc := sgrSeq.FindStringIndex(row)
					text := row
					if loc != nil {
						text = row[:loc[0]]
					}
					if fg != nil && strings.IndexFunc(text, func(r rune) bool { return !unicode.IsSpace(r) && !isLine(r) }) >= 0 {
						coloured++
						back := c.bg
						if bg != nil {
							back = bg
						}
						if r := contrast(lum(fg), lum(back)); r < 3 {
							t.Errorf("row %d: %q in %v on %v: %.2f:1", i, ansi.Strip(text), fg, back, r)
						}
					}
					if loc == nil {
						break
					}
					fg, bg = sgrColours(row[loc[0]:loc[1]], fg, bg)
					row = row[loc[1]:]
				}
			}
			if coloured < 20 {
				t.Errorf("only %d coloured runs: the check reads nothing", coloured)
			}
		})
	}
}

// isLine reports a box-drawing or block character (a rule, not text).
func isLine(r rune) bool { return r >= 0x2500 && r <= 0x259F }

// Golden screens of every theme, with their escape sequences, at the sizes
// of the other screens: an @all exchange answered, banner and all (the
// dark theme's are also kept as plain text, TestModeScreensAtEverySize).
func TestThemeScreensAtEverySize(t *testing.T) {
	for _, theme := range []string{prefs.ThemeDark, prefs.ThemeLight, prefs.ThemeHighContrast} {
		for _, sz := range screenSizes {
			t.Run(theme+"/"+sz.name, func(t *testing.T) {
				t.Parallel()
				s := answeredScreen(t, theme, sz.w, sz.h, true)
				checkScreen(t, ansi.Strip(s), sz.w, sz.h)
				golden.RequireEqual(t, s)
			})
		}
	}
}
