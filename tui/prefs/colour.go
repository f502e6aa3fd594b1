package prefs

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// MinContrast is the contrast every text colour keeps against its theme's
// background (WCAG AA for text): the built-in themes' and the ones
// `theme: {colors: …}` sets.
const MinContrast = 4.5

// maxColours bounds `theme: {colors: …}` (the roles and a few dozen agents).
const maxColours = 64

// Role is a colour `theme: {colors: …}` may set.
type Role struct {
	Name string
	Help string // what it colours, as docs/console.md says
	Text bool   // it colours text: it must read on the background
}

// Roles are the colours by role, in the order docs/console.md lists
// them; an agent's name is a role too (its panel and turns).
var Roles = []Role{
	{"accent", "the active mode tab, the selected turn, the palette's choice", true},
	{"border", "the edges and titles of the palette, the session list, the help and the evidence list", true},
	{"text", "titles and the input's prompt", true},
	{"muted", "idle tabs, the status line, times and notes", true},
	{"rule", "the lines between the parts of the screen (not text: no contrast asked)", false},
	{"warn", "warnings and the find's matches", true},
	{"error", "errors and failed turns", true},
	{"ok", "what went well (sent, copied, a verdict)", true},
	{"host", "your own words in the transcript", true},
	{"agent", "an agent's colour when it has none (color: in agents:)", true},
	{"help_key", "the keys in the key help", true},
	{"help_desc", "what the keys do in the key help", true},
}

// RoleNames are the roles' names.
func RoleNames() []string {
	out := make([]string, len(Roles))
	for i, r := range Roles {
		out[i] = r.Name
	}
	return out
}

// ColourProblem is what is wrong with one entry of `theme: {colors: …}`.
type ColourProblem struct {
	Role string // the entry ("" for the mapping itself)
	Text string
}

func (p *ColourProblem) Error() string {
	if p.Role == "" {
		return "theme.colors: " + p.Text
	}
	return "theme.colors." + p.Role + ": " + p.Text
}

// CheckColours checks the colours a configuration sets over a base theme
// (dark or light) and returns them as #RRGGBB by role, or the first
// problem found as a *ColourProblem: a base that has no colours to set
// (auto, high-contrast), a role that is none of Roles nor an agent, a
// colour that is not #RGB or #RRGGBB, or a text colour under MinContrast
// against the base's background (black for dark, white for light), with
// the ratio measured.
func CheckColours(base string, colours map[string]string, agents []string) (map[string]string, error) {
	if len(colours) == 0 {
		return nil, nil
	}
	if base != ThemeDark && base != ThemeLight {
		return nil, &ColourProblem{Text: fmt.Sprintf("colours are set over base: dark or base: light, not %s (%s draws no colour of its own)", strconv.Quote(base), baseWhy(base))}
	}
	if len(colours) > maxColours {
		return nil, &ColourProblem{Text: fmt.Sprintf("%d colours; at most %d", len(colours), maxColours)}
	}
	bg := 0.0 // black
	if base == ThemeLight {
		bg = 1.0
	}
	out := make(map[string]string, len(colours))
	for _, role := range slices.Sorted(maps.Keys(colours)) {
		name := strings.ToLower(role)
		i := slices.IndexFunc(Roles, func(r Role) bool { return r.Name == name })
		isAgent := slices.Contains(agents, name)
		if i < 0 && !isAgent {
			return nil, &ColourProblem{Role: role, Text: fmt.Sprintf("unknown role (the roles: %s, or an agent's name: %s)", strings.Join(RoleNames(), ", "), strings.Join(agents, ", "))}
		}
		hex, r, g, b, err := ParseColour(colours[role])
		if err != nil {
			return nil, &ColourProblem{Role: role, Text: err.Error()}
		}
		if isAgent || Roles[i].Text {
			if ratio := Contrast(Luminance(r, g, b), bg); ratio < MinContrast {
				return nil, &ColourProblem{Role: role, Text: fmt.Sprintf("%s has %.2f:1 against the %s theme's background; text needs %.1f:1", hex, ratio, base, MinContrast)}
			}
		}
		out[name] = hex
	}
	return out, nil
}

func baseWhy(base string) string {
	if base == ThemeHighContrast {
		return "high-contrast is the terminal's own two colours"
	}
	return "auto is dark or light only once the terminal answers, and a colour reads on one of them"
}

// ParseColour reads a colour as `theme: {colors: …}` writes it, #RGB or
// #RRGGBB in either case, and returns it as #RRGGBB with its channels in
// [0, 1].
func ParseColour(s string) (hex string, r, g, b float64, err error) {
	t := strings.TrimSpace(s)
	if len(t) > 16 {
		return "", 0, 0, 0, fmt.Errorf("%d bytes is no colour (write #RRGGBB)", len(t))
	}
	bad := fmt.Errorf("%s is not a colour (write #RRGGBB or #RGB, e.g. #10A37F)", strconv.Quote(t))
	if !strings.HasPrefix(t, "#") || (len(t) != 4 && len(t) != 7) {
		return "", 0, 0, 0, bad
	}
	digits := t[1:]
	if len(digits) == 3 {
		digits = string([]byte{digits[0], digits[0], digits[1], digits[1], digits[2], digits[2]})
	}
	v, perr := strconv.ParseUint(digits, 16, 32)
	if perr != nil {
		return "", 0, 0, 0, bad
	}
	hex = fmt.Sprintf("#%06X", v)
	return hex, float64(v>>16&0xff) / 255, float64(v>>8&0xff) / 255, float64(v&0xff) / 255, nil
}

// Luminance is WCAG's relative luminance of an sRGB colour (channels in
// [0, 1]).
func Luminance(r, g, b float64) float64 {
	lin := func(c float64) float64 {
		if c <= 0.04045 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// Contrast is WCAG's contrast ratio of two luminances.
func Contrast(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	return (a + 0.05) / (b + 0.05)
}
