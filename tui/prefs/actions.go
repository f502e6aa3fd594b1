package prefs

// Context is where an action acts: everywhere, or with the input, the
// transcript or the panels focused, or while a search is open.
type Context int

// The contexts; a key may serve two actions only in different contexts.
const (
	Global Context = iota
	Input
	Transcript
	Panels
	Find
)

func (c Context) String() string {
	return [...]string{"everywhere", "the input", "the transcript", "the panels", "a search"}[c]
}

// Action is one thing the console does on a key.
type Action struct {
	Name string   // as `keys:` names it: copy, find_next, mode_magi
	Keys []string // its default keys, as Bubble Tea names them
	Help string   // what it does, as the key help says
	In   []Context
}

// ModePrefix starts the action of a mode's key: mode_magi.
const ModePrefix = "mode_"

// Mode is a mode's action: its console key from the mode's descriptor.
func Mode(name, key string) Action {
	return Action{Name: ModePrefix + name, Keys: []string{key}, Help: name + " mode", In: []Context{Global}}
}

// Actions are the console's actions with their default keys, in the order
// the key help lists them (the modes' keys are added by the console, one
// Mode each).
func Actions() []Action {
	g, in, tr, pa, fi := []Context{Global}, []Context{Input}, []Context{Transcript}, []Context{Panels}, []Context{Find}
	both := []Context{Transcript, Panels}
	return []Action{
		{"submit", []string{"enter"}, "send", in},
		{"newline", []string{"alt+enter", "shift+enter", "ctrl+j"}, "new line", in},
		{"history_prev", []string{"up"}, "previous input", in},
		{"history_next", []string{"down"}, "next input", in},
		{"focus_next", []string{"tab"}, "focus next", g},
		{"focus_prev", []string{"shift+tab"}, "focus previous", g},
		{"cycle_mode", []string{"ctrl+t"}, "next mode", g},
		{"up", []string{"up", "k"}, "previous turn", both},
		{"down", []string{"down", "j"}, "next turn", both},
		{"page_up", []string{"pgup"}, "page up", []Context{Input, Transcript, Panels}},
		{"page_down", []string{"pgdown"}, "page down", []Context{Input, Transcript, Panels}},
		{"home", []string{"home", "g"}, "first turn", both},
		{"end", []string{"end", "G"}, "last turn", both},
		{"open", []string{"enter"}, "open turn", both},
		{"prev_exchange", []string{"["}, "previous exchange", tr},
		{"next_exchange", []string{"]"}, "next exchange", tr},
		{"prev_same", []string{"{"}, "previous turn of this speaker", tr},
		{"next_same", []string{"}"}, "next turn of this speaker", tr},
		{"find", []string{"ctrl+f", "/"}, "find in the transcript", g},
		{"find_next", []string{"enter", "n"}, "next match", fi},
		{"find_prev", []string{"shift+enter", "N"}, "previous match", fi},
		{"copy", []string{"y"}, "copy the turn (Markdown)", both},
		{"copy_code", []string{"Y"}, "copy its last code block", both},
		{"select", []string{"v"}, "select mode (frees the mouse)", both},
		{"panel_left", []string{"left", "h"}, "previous panel", pa},
		{"panel_right", []string{"right", "l"}, "next panel", pa},
		{"cancel", []string{"esc"}, "cancel / close", g},
		{"sessions", []string{"ctrl+s"}, "sessions", g},
		{"palette", []string{"ctrl+p"}, "commands", g},
		{"help", []string{"?", "f1"}, "all keys", g},
		{"quit", []string{"ctrl+c"}, "cancel/quit", g},
	}
}

// meets reports whether two actions' contexts meet: where one acts the
// other's key would be taken too. Global actions meet every other (they
// are matched first); a search's keys meet the global ones (matched
// before them while a search is open).
func meets(a, b []Context) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y || x == Global || y == Global {
				return true
			}
		}
	}
	return false
}
