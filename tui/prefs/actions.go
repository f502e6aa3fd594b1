package prefs

// Context is where an action acts: everywhere, or with the input, the
// transcript or the panels focused, or while a search is open; or in a
// box that takes every key while it is open (the palette, the session
// list, the box of one turn, the help or the agents).
type Context int

// The contexts; a key may serve two actions only in different contexts.
const (
	Global Context = iota
	Input
	Transcript
	Panels
	Find
	Palette
	Sessions
	Box
)

func (c Context) String() string {
	return [...]string{"everywhere", "the input", "the transcript", "the panels", "a search", "the palette", "the session list", "the turn box"}[c]
}

// modal reports a box that takes every key while it is open: the actions
// everywhere do not act there, but the ones that list it.
func (c Context) modal() bool { return c >= Palette }

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
	pal, ses, box := []Context{Palette}, []Context{Sessions}, []Context{Box}
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
		{"sessions", []string{"ctrl+s"}, "sessions", []Context{Global, Sessions}},     // closes the list too
		{"palette", []string{"ctrl+p"}, "commands", []Context{Global, Palette}},       // closes the palette too
		{"help", []string{"?", "f1"}, "all keys", []Context{Global, Box}},             // closes the box too
		{"quit", []string{"ctrl+c"}, "cancel/quit", []Context{Global, Sessions, Box}}, // the palette's ctrl+c closes it
		{"palette_run", []string{"enter"}, "run", pal},
		{"palette_up", []string{"up", "ctrl+k"}, "choose above", pal},
		{"palette_down", []string{"down", "ctrl+j", "ctrl+n"}, "choose below", pal},
		{"palette_page_up", []string{"pgup"}, "a page up", pal},
		{"palette_page_down", []string{"pgdown"}, "a page down", pal},
		{"palette_clear", []string{"ctrl+u"}, "clear the query", pal},
		{"palette_close", []string{"esc", "ctrl+c"}, "close", pal},
		{"sessions_open", []string{"enter"}, "resume", ses},
		{"sessions_up", []string{"up", "k"}, "previous", ses},
		{"sessions_down", []string{"down", "j"}, "next", ses},
		{"sessions_fork", []string{"f"}, "fork", ses},
		{"sessions_delete", []string{"d"}, "delete (press twice)", ses},
		{"sessions_close", []string{"esc", "q"}, "close", ses},
		{"box_close", []string{"esc", "q", "enter"}, "close", box},
		{"box_up", []string{"up", "k"}, "scroll up", box},
		{"box_down", []string{"down", "j"}, "scroll down", box},
		{"box_page_up", []string{"pgup"}, "page up", box},
		{"box_page_down", []string{"pgdown", "space"}, "page down", box},
		{"box_home", []string{"home", "g"}, "top", box},
		{"box_end", []string{"end", "G"}, "bottom", box},
	}
}

// meets reports whether two actions' contexts meet: where one acts the
// other's key would be taken too. Global actions meet every other (they
// are matched first) but a box's that takes every key (modal); a search's
// keys meet the global ones (matched before them while a search is open).
func meets(a, b []Context) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y || x == Global && !y.modal() || y == Global && !x.modal() {
				return true
			}
		}
	}
	return false
}
