package configload

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/tui/prefs"
)

// checkConsole checks the console's settings with the console's rules:
// theme: is one it has (its colours by role known and readable), and keys: names its actions and keys, two actions
// never on one key where both act. A problem names the file and line (of
// both actions, for two on one key).
func (ld *loader) checkConsole(cfg *config.Config) error {
	if err := ld.checkTheme(cfg); err != nil {
		return err
	}
	actions := prefs.Actions()
	for _, mi := range cfg.ModeList.Infos() {
		actions = append(actions, prefs.Mode(mi.Name, mi.Key))
	}
	keys := cfg.Keys
	_, err := prefs.Resolve(actions, keys)
	var p *prefs.Problem
	if !errors.As(err, &p) {
		return err
	}
	key, problem := "keys."+p.Action, p.Text
	if p.Index >= 0 && len(keys[p.Action]) > 1 && p.Other == "" {
		key += fmt.Sprintf("[%d]", p.Index)
	}
	if p.Unknown {
		names := make([]string, len(actions))
		for i, a := range actions {
			names[i] = a.Name
		}
		problem = fmt.Sprintf("unknown action (did you mean %s?)", Closest(p.Action, names))
	}
	if p.Other != "" {
		if p.OtherSet {
			problem += fmt.Sprintf(" (keys.%s is set at %s)", p.Other, ld.l.SourceOf("keys."+p.Other))
		} else {
			problem += " (its default key; give " + p.Other + " another under keys: to free it)"
		}
	}
	return ld.locate(&config.ConfigError{File: ld.source, Key: key, Problem: problem})
}

// checkTheme checks theme: — a theme's name, or a base and colours by
// role over it — and keeps the colours as the console reads them
// (#RRGGBB by role, lower case). Without a base, colours go over dark.
func (ld *loader) checkTheme(cfg *config.Config) error {
	th := &cfg.Theme
	key := "theme"
	if ld.file.has("theme.base") {
		key = "theme.base"
	}
	if th.Base == "" && len(th.Colors) > 0 {
		th.Base = prefs.ThemeDark
	}
	if th.Base != "" && !slices.Contains(prefs.Themes, th.Base) {
		return ld.locate(&config.ConfigError{File: ld.source, Key: key,
			Problem: fmt.Sprintf("%s is not a theme (%s)", config.Quote(th.Base), strings.Join(prefs.Themes, ", "))})
	}
	agents := make([]string, len(cfg.Agents))
	for i, a := range cfg.Agents {
		agents[i] = strings.ToLower(a.Name)
	}
	colours, err := prefs.CheckColours(th.Base, th.Colors, agents)
	var p *prefs.ColourProblem
	if errors.As(err, &p) {
		at := "theme.colors"
		if p.Role != "" {
			at += "." + p.Role
		}
		return ld.locate(&config.ConfigError{File: ld.source, Key: at, Problem: p.Text})
	}
	if err != nil {
		return err
	}
	th.Colors = colours
	return nil
}
