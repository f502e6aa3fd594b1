package configload

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/tui/prefs"
)

// checkConsole checks the console's settings with the console's rules:
// theme: is one it has, and keys: names its actions and keys, two actions
// never on one key where both act. A problem names the file and line (of
// both actions, for two on one key).
func (ld *loader) checkConsole(cfg *debate.Config) error {
	if cfg.Theme != "" && !slices.Contains(prefs.Themes, cfg.Theme) {
		return ld.locate(&debate.ConfigError{File: ld.source, Key: "theme",
			Problem: fmt.Sprintf("%s is not a theme (%s)", debate.Quote(cfg.Theme), strings.Join(prefs.Themes, ", "))})
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
	return ld.locate(&debate.ConfigError{File: ld.source, Key: key, Problem: problem})
}
