package prefs

import (
	"fmt"
	"slices"
	"sort"

	tea "charm.land/bubbletea/v2"
)

// maxKeysPerAction bounds one action's list of keys.
const maxKeysPerAction = 8

// Problem is what is wrong with one entry of `keys:`.
type Problem struct {
	Action string // the entry, as `keys:` names it
	Index  int    // the key within the entry's list; -1: the entry itself
	// Other is, for two actions on one key, the other action; OtherSet
	// says it is set under `keys:` too (else the key is its default).
	Other    string
	OtherSet bool
	Text     string // what is wrong
	Unknown  bool   // the action is none of the console's
}

func (p *Problem) Error() string { return "keys." + p.Action + ": " + p.Text }

// Resolve puts the keys a configuration sets (action → key names, as
// written) over the actions' defaults, and returns every action with its
// keys in force, as Bubble Tea names them. The first problem found is
// returned as a *Problem: an unknown action, an empty list, a name that is
// no key, or a key two actions share where both act.
func Resolve[L ~[]string](actions []Action, keys map[string]L) ([]Action, error) {
	out := slices.Clone(actions)
	index := map[string]int{}
	for i, a := range out {
		index[a.Name] = i
	}
	names := make([]string, 0, len(keys))
	for name := range keys {
		names = append(names, name)
	}
	sort.Strings(names)
	set := map[string]bool{}
	for _, name := range names {
		i, ok := index[name]
		if !ok {
			return nil, &Problem{Action: name, Index: -1, Unknown: true, Text: "unknown action (docs/console.md lists them)"}
		}
		list := keys[name]
		switch {
		case len(list) == 0:
			return nil, &Problem{Action: name, Index: -1, Text: "needs a key (every action keeps one)"}
		case len(list) > maxKeysPerAction:
			return nil, &Problem{Action: name, Index: -1, Text: fmt.Sprintf("%d keys; at most %d", len(list), maxKeysPerAction)}
		}
		var parsed []string
		for j, k := range list {
			canon, press, err := ParseKey(k)
			if err != nil {
				return nil, &Problem{Action: name, Index: j, Text: err.Error()}
			}
			if slices.Contains(out[i].In, Palette) && types(press) {
				return nil, &Problem{Action: name, Index: j, Text: fmt.Sprintf("%s types into the palette's query: give it a key with ctrl or alt, or a named one", canon)}
			}
			if !slices.Contains(parsed, canon) {
				parsed = append(parsed, canon)
			}
		}
		out[i].Keys, set[name] = parsed, true
	}
	if p := conflict(out, set); p != nil {
		return nil, p
	}
	return out, nil
}

// conflict finds a key two actions share where both act, one of them set
// by the configuration at least (the defaults share none).
func conflict(actions []Action, set map[string]bool) *Problem {
	for i, a := range actions {
		for j := i + 1; j < len(actions); j++ {
			b := actions[j]
			if !set[a.Name] && !set[b.Name] || !meets(a.In, b.In) {
				continue
			}
			for _, k := range a.Keys {
				if !slices.Contains(b.Keys, k) {
					continue
				}
				at, other := a, b
				if !set[a.Name] {
					at, other = b, a
				}
				return &Problem{
					Action: at.Name, Index: slices.Index(at.Keys, k), Other: other.Name, OtherSet: set[other.Name],
					Text: fmt.Sprintf("%s is also the key of %s (%s), %s", k, other.Name, other.Help, where(at.In, other.In)),
				}
			}
		}
	}
	return nil
}

// types reports a key that types into a query (a character without ctrl
// or alt, or space).
func types(k tea.KeyPressMsg) bool {
	return k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 && (k.Text != "" || k.Code == tea.KeySpace)
}

// where says where two actions that meet both act.
func where(a, b []Context) string {
	for _, x := range a {
		if slices.Contains(b, x) && x != Global {
			return "both in " + x.String()
		}
	}
	if slices.Contains(a, Global) && slices.Contains(b, Global) {
		return "both everywhere"
	}
	other := b
	if !slices.Contains(a, Global) {
		other = a
	}
	return "one everywhere, the other in " + other[0].String() + " (the one everywhere wins)"
}
