package tui

import (
	"fmt"
	"image/color"
	"math"
	"reflect"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textarea"
	gansi "charm.land/glamour/v2/ansi"
	gstyles "charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"

	"github.com/parleyhq/parley/tui/prefs"
)

// minContrast is the contrast every text colour of the dark and light
// themes keeps against black and white respectively (WCAG AA for text).
const minContrast = prefs.MinContrast

// colours are a theme's colours by role ("" is the terminal's own).
type colours struct {
	accent, border, muted, subtle, text, warn, err, ok, user, agent string
	bannerFg, bannerBg                                              string
	helpKey, helpDesc                                               string
}

var (
	darkColours = colours{
		accent: "#7D56F4", border: "#7D56F4", muted: "#8A8A8A", subtle: "#3A3A3A", text: "#DADADA",
		warn: "#EAB308", err: "#EF4444", ok: "#22C55E", user: "#E5E5E5", agent: "#A3A3A3",
		bannerFg: "#EAB308", bannerBg: "#1F1F1F", helpKey: "#BCBCBC", helpDesc: "#949494",
	}
	lightColours = colours{
		accent: "#6B46E5", border: "#6B46E5", muted: "#5F5F5F", subtle: "#BCBCBC", text: "#262626",
		warn: "#8A6100", err: "#C41E1E", ok: "#157A3A", user: "#1C1C1C", agent: "#4E4E4E",
		bannerFg: "#6B4B00", bannerBg: "#FFF1CC", helpKey: "#303030", helpDesc: "#585858",
	}
)

// theme is every style of the console: no colour is written anywhere
// else (TestNoColourOutsideTheTheme). A theme is built once per console
// and read by every part that draws.
type theme struct {
	name string
	dark bool // the background it is made for (high contrast: either)

	tabActive, tabIdle, title, muted, mutedBold, subtle ink
	warn, warnBold, err, errBold, ok, okBold, bold      ink
	banner, status, selected, user                      ink
	okBanner, errBanner, warnBanner, found              ink
	box                                                 ink // the boxes' edges (palette, sessions, help)

	// agentDefault is an agent's colour when it has none; monochrome: the
	// agents' colours are not used.
	agentDefault string
	monochrome   bool
	// agentsSet are the colours `theme: {colors: …}` sets, agents' by name
	// among them (over the agents' own color:).
	agentsSet map[string]string

	help     help.Styles
	input    textarea.Styles
	markdown gansi.StyleConfig

	mu   sync.Mutex
	inks map[inkKey]ink
}

// resolveTheme is the theme a name stands for, given whether the
// background is dark (auto), with the configuration's colours by role
// over it (checked by prefs.CheckColours: dark or light only); an unknown
// name is dark.
func resolveTheme(name string, darkBackground bool, byRole map[string]string) *theme {
	switch name {
	case prefs.ThemeLight:
		return newThemeWith(prefs.ThemeLight, byRole)
	case prefs.ThemeHighContrast:
		return newTheme(prefs.ThemeHighContrast)
	case prefs.ThemeAuto, "":
		if !darkBackground {
			return newTheme(prefs.ThemeLight)
		}
		return newTheme(prefs.ThemeDark)
	}
	return newThemeWith(prefs.ThemeDark, byRole)
}

func newTheme(name string) *theme { return newThemeWith(name, nil) }

// newThemeWith is the theme name with colours by role over its own
// (prefs.Roles; an agent's name sets that agent's colour).
func newThemeWith(name string, byRole map[string]string) *theme {
	if name == prefs.ThemeHighContrast {
		return newMonochrome()
	}
	c, dark, md := darkColours, true, gstyles.DarkStyleConfig
	if name == prefs.ThemeLight {
		c, dark, md = lightColours, false, gstyles.LightStyleConfig
	}
	c = c.with(byRole)
	st := func() lipgloss.Style { return lipgloss.NewStyle() }
	fgs := func(hex string) lipgloss.Style { return st().Foreground(lipgloss.Color(hex)) }
	th := &theme{
		name: name, dark: dark, agentDefault: c.agent,
		tabActive:  newInk(fgs(onColour(c.accent)).Background(lipgloss.Color(c.accent)).Bold(true)),
		tabIdle:    newInk(fgs(c.muted)),
		title:      newInk(fgs(c.text).Bold(true)),
		muted:      newInk(fgs(c.muted)),
		mutedBold:  newInk(fgs(c.muted).Bold(true)),
		subtle:     newInk(fgs(c.subtle)),
		agentsSet:  byRole,
		warn:       newInk(fgs(c.warn)),
		warnBold:   newInk(fgs(c.warn).Bold(true)),
		err:        newInk(fgs(c.err)),
		errBold:    newInk(fgs(c.err).Bold(true)),
		ok:         newInk(fgs(c.ok)),
		okBold:     newInk(fgs(c.ok).Bold(true)),
		bold:       newInk(st().Bold(true)),
		banner:     newInk(fgs(c.bannerFg).Background(lipgloss.Color(c.bannerBg)).Bold(true)),
		status:     newInk(fgs(c.muted)),
		selected:   newInk(fgs(c.accent).Bold(true)),
		user:       newInk(fgs(c.user).Bold(true)),
		okBanner:   newInk(fgs(c.ok).Bold(true).Reverse(true)),
		errBanner:  newInk(fgs(c.err).Bold(true).Reverse(true)),
		warnBanner: newInk(fgs(c.warn).Bold(true).Reverse(true)),
		found:      newInk(fgs(c.warn).Reverse(true)),
		box:        newInk(fgs(c.border).Bold(true)),
		help:       helpStyles(fgs(c.helpKey), fgs(c.helpDesc)),
		input:      inputStyles(dark, fgs(c.muted), fgs(c.text), lipgloss.Color(c.text)),
		markdown:   withoutMargin(md),
		inks:       map[inkKey]ink{},
	}
	return th
}

// newMonochrome is the high-contrast theme: the terminal's own foreground
// and background only (whatever they are, they are the pair its user
// reads best), told apart by bold, underline and reverse; no grey, no
// colour, the Markdown's colours taken out too.
func newMonochrome() *theme {
	st := lipgloss.NewStyle
	bold := newInk(st().Bold(true))
	plain := ink{}
	return &theme{
		name: prefs.ThemeHighContrast, dark: true, monochrome: true,
		tabActive: newInk(st().Bold(true).Reverse(true)), tabIdle: plain,
		title: bold, muted: plain, mutedBold: bold, subtle: plain,
		warn: newInk(st().Underline(true)), warnBold: newInk(st().Bold(true).Underline(true)),
		err: newInk(st().Bold(true).Underline(true)), errBold: newInk(st().Bold(true).Underline(true)),
		ok: plain, okBold: bold, bold: bold,
		banner: newInk(st().Bold(true).Reverse(true)), status: plain,
		selected: newInk(st().Bold(true).Reverse(true)), user: bold,
		okBanner: newInk(st().Bold(true).Reverse(true)), errBanner: newInk(st().Bold(true).Reverse(true)),
		warnBanner: newInk(st().Bold(true).Reverse(true)),
		found:      newInk(st().Reverse(true).Underline(true)),
		box:        bold,
		help:       helpStyles(st().Bold(true), st()),
		input:      inputStyles(true, st().Italic(true), st(), nil),
		markdown:   withoutColour(withoutMargin(gstyles.DarkStyleConfig)),
		inks:       map[inkKey]ink{},
	}
}

// helpStyles are the key help's styles: keys and descriptions (bubbles'
// defaults put the descriptions in #4A4A4A, 2.4:1 on black, unreadable on
// dark terminals).
func helpStyles(key, desc lipgloss.Style) help.Styles {
	return help.Styles{
		Ellipsis: desc, ShortKey: key, ShortDesc: desc, ShortSeparator: desc,
		FullKey: key, FullDesc: desc, FullSeparator: desc,
	}
}

// inputStyles are the input box's: bubbles' for the background, with the
// placeholder, the prompt and the cursor in the theme's styles (bubbles'
// prompt and cursor are ANSI silver, 1.8:1 on white).
func inputStyles(dark bool, placeholder, prompt lipgloss.Style, cursor color.Color) textarea.Styles {
	s := textarea.DefaultStyles(dark)
	s.Cursor.Color = cursor
	for _, state := range []*textarea.StyleState{&s.Focused, &s.Blurred} {
		state.Placeholder, state.Prompt = placeholder, prompt
		state.CursorLine = lipgloss.NewStyle()
		state.Text = lipgloss.NewStyle()
	}
	return s
}

// withoutMargin is a glamour style without the document margin: the
// console's panels and gutters already provide one.
func withoutMargin(s gansi.StyleConfig) gansi.StyleConfig {
	zero := uint(0)
	s.Document.Margin = &zero
	s.Document.BlockPrefix = ""
	s.Document.BlockSuffix = ""
	return s
}

// withoutColour is a glamour style with every colour taken out (bold,
// italic, underline and the code's plain text stay).
func withoutColour(s gansi.StyleConfig) gansi.StyleConfig {
	s.CodeBlock.Chroma, s.CodeBlock.Theme = nil, ""
	clearColours(reflect.ValueOf(&s).Elem())
	return s
}

func clearColours(v reflect.Value) {
	if v.Kind() != reflect.Struct {
		return
	}
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch {
		case (name == "Color" || name == "BackgroundColor") && f.Kind() == reflect.Pointer:
			f.SetZero()
		case f.Kind() == reflect.Struct:
			clearColours(f)
		}
	}
}

// agent is the ink of an agent's colour (hex; "" none), made readable on
// the theme's background: a colour under minContrast is lightened on a
// dark theme and darkened on a light one, until it reads.
func (th *theme) agent(hex string, bold, reverse bool) ink {
	key := inkKey{hex, bold, reverse}
	th.mu.Lock()
	defer th.mu.Unlock()
	if k, ok := th.inks[key]; ok {
		return k
	}
	st := lipgloss.NewStyle().Bold(bold).Reverse(reverse)
	if !th.monochrome {
		if hex == "" {
			hex = th.agentDefault
		}
		st = st.Foreground(readable(lipgloss.Color(hex), th.dark))
	}
	k := newInk(st)
	th.inks[key] = k
	return k
}

type inkKey struct {
	hex           string
	bold, reverse bool
}

// readable moves c toward white (dark background) or black (light one)
// until it has minContrast against black or white.
func readable(c color.Color, dark bool) color.Color {
	r, g, b := rgb(c)
	bg, to := 0.0, 1.0 // black, toward white
	if !dark {
		bg, to = 1.0, 0.0
	}
	for range 20 {
		if contrast(luminance(r, g, b), bg) >= minContrast {
			break
		}
		r, g, b = r+(to-r)*0.1, g+(to-g)*0.1, b+(to-b)*0.1
	}
	return lipgloss.Color(fmt.Sprintf("#%02X%02X%02X", int(math.Round(r*255)), int(math.Round(g*255)), int(math.Round(b*255))))
}

// rgb is c's channels in [0, 1].
func rgb(c color.Color) (r, g, b float64) {
	if c == nil {
		return 0, 0, 0
	}
	R, G, B, _ := c.RGBA()
	return float64(R) / 0xffff, float64(G) / 0xffff, float64(B) / 0xffff
}

// luminance and contrast are WCAG's, as the configuration's check
// measures them.
var luminance, contrast = prefs.Luminance, prefs.Contrast

// themeWait bounds how long the first frame waits for the terminal to say
// its background (auto theme); then the console draws dark, and an answer
// that comes later is not taken (the colours never change under a reader).
const themeWait = 300 * time.Millisecond

// themeWaitOver ends the wait for the background.
type themeWaitOver struct{}

// background takes the terminal's answer to the background query: in
// auto, a light background gives the light theme. Only while the first
// frame waits for it.
func (m *Model) background(dark bool) {
	if !m.themeAsked {
		return
	}
	m.themeAsked = false
	if th := resolveTheme(prefs.ThemeAuto, dark, nil); th.name != m.th.name {
		m.setTheme(th)
	}
}

// setTheme draws everything in th from now on: what was rendered in the
// previous theme is rendered again.
func (m *Model) setTheme(th *theme) {
	m.th = th
	m.md.setTheme(th)
	m.help.Styles = th.help
	m.in.SetStyles(th.input)
	m.helpCache, m.stale = "", true
	m.reload()
}

// with is c with the colours a configuration sets by role (prefs.Roles,
// already checked and written #RRGGBB); an agent's name is not c's.
func (c colours) with(byRole map[string]string) colours {
	fields := map[string]*string{
		"accent": &c.accent, "border": &c.border, "text": &c.text, "muted": &c.muted, "rule": &c.subtle,
		"warn": &c.warn, "error": &c.err, "ok": &c.ok, "host": &c.user, "agent": &c.agent,
		"help_key": &c.helpKey, "help_desc": &c.helpDesc,
	}
	for role, hex := range byRole {
		if f, ok := fields[role]; ok {
			*f = hex
		}
	}
	return c
}

// agentColour is an agent's colour: the one `theme: {colors: …}` gives
// its name, else its own (color: under agents:).
func (th *theme) agentColour(name, own string) string {
	if hex, ok := th.agentsSet[name]; ok && !isRole(name) {
		return hex
	}
	return own
}

func isRole(name string) bool {
	for _, r := range prefs.Roles {
		if r.Name == name {
			return true
		}
	}
	return false
}

// onColour is the text colour that reads on a background of hex: white
// or black, whichever contrasts more (a light accent takes black text).
func onColour(hex string) string {
	l := luminance(rgb(lipgloss.Color(hex)))
	if contrast(l, 1) >= contrast(l, 0) {
		return "#FFFFFF"
	}
	return "#000000"
}
