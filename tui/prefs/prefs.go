// Package prefs is what a user sets for the console in the configuration:
// the theme's name and its colours by role (`theme:`, checked for
// readable contrast) and the key bindings (`keys:`): every
// action of the console, its default keys and where it acts, the parser
// of a key's name, and the check that finds an unknown action, a key that
// is none, or two actions on one key where both act. It knows key names
// as Bubble Tea reports them and nothing of the console's drawing.
package prefs

// The themes `theme:` names. Auto asks the terminal for its background
// and takes dark or light.
const (
	ThemeAuto         = "auto"
	ThemeDark         = "dark"
	ThemeLight        = "light"
	ThemeHighContrast = "high-contrast"
)

// Themes lists the values `theme:` takes ("" is auto).
var Themes = []string{ThemeAuto, ThemeDark, ThemeLight, ThemeHighContrast}
