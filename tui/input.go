package tui

import (
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// maxInputLines bounds how tall the input box grows with its text.
const maxInputLines = 5

// input is the message box: a multi-line textarea with @name completion
// and a history of previous inputs (↑/↓ while empty or browsing).
type input struct {
	ta      textarea.Model
	names   []string // completable @names: the agents and "all"
	modes   []string // what /mode completes to
	history []string
	hist    int // position while browsing history; len(history): not browsing
	width   int

	// Tab on an @word several names fit, with nothing to extend, cycles
	// through them: cycle holds the names, the text shows cycle[cycleAt].
	cycle    []string
	cycleAt  int
	cycleFor string // the text while cycling; any edit ends it (cursor blinks do not)

	view  []string // the last render, until something changes the box
	dirty bool
}

func newInput(names, modes []string) *input {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "› "
	ta.Placeholder = "@all ask everyone · plain text is a note · /help"
	ta.CharLimit = 0
	// The box grows with the text as it wraps (visual rows, not lines),
	// up to maxInputLines; the text itself may be much longer and scrolls.
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = maxInputLines
	ta.MaxContentHeight = 10000
	km := textarea.DefaultKeyMap()
	km.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "shift+enter", "ctrl+j"))
	km.TransposeCharacterBackward = key.NewBinding(key.WithDisabled()) // ctrl+t cycles modes
	ta.KeyMap = km
	ta.SetHeight(1)
	in := &input{ta: ta, names: append(append([]string(nil), names...), "all"), modes: modes}
	sort.Strings(in.names)
	return in
}

// SetSize sets the width; the height follows the text.
func (in *input) SetSize(w, _ int) {
	if w == in.width && in.view != nil {
		return
	}
	in.dirty = true
	in.width = w
	in.ta.SetWidth(w)
	in.fitHeight()
}

// fitHeight notes that the box may have changed (the textarea sizes itself
// to its text).
func (in *input) fitHeight() { in.dirty = true }

// SetNewline sets the keys that start a new line.
func (in *input) SetNewline(b key.Binding) {
	km := in.ta.KeyMap
	km.InsertNewline = key.NewBinding(key.WithKeys(b.Keys()...))
	in.ta.KeyMap = km
}

// SetStyles sets the box's styles (the theme's).
func (in *input) SetStyles(s textarea.Styles) {
	in.ta.SetStyles(s)
	in.dirty = true
}

// SetPlaceholder sets what the empty box says.
func (in *input) SetPlaceholder(s string) {
	in.ta.Placeholder = s
	in.dirty = true
}

// Height is the number of lines the box takes.
func (in *input) Height() int { return in.ta.Height() }

func (in *input) Focus() tea.Cmd { in.dirty = true; return in.ta.Focus() }
func (in *input) Blur()          { in.dirty = true; in.ta.Blur() }
func (in *input) Value() string  { return in.ta.Value() }

// SetValue replaces the text (cursor at the end).
func (in *input) SetValue(s string) {
	in.ta.SetValue(s)
	in.fitHeight()
}

// Take returns the text, clears the box and records the text in history.
func (in *input) Take() string {
	v := in.ta.Value()
	in.ta.Reset()
	in.fitHeight()
	if strings.TrimSpace(v) != "" && (len(in.history) == 0 || in.history[len(in.history)-1] != v) {
		in.history = append(in.history, v)
	}
	in.hist = len(in.history)
	return v
}

// Update passes a message to the textarea.
func (in *input) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	in.fitHeight()
	if _, ok := msg.(tea.KeyPressMsg); ok && in.hist < len(in.history) && in.ta.Value() != in.history[in.hist] {
		in.hist = len(in.history) // edited: no longer browsing
	}
	return cmd
}

// Browsing reports whether ↑/↓ should walk the history: the box is empty or
// shows an unedited history item.
func (in *input) Browsing() bool {
	v := in.ta.Value()
	return v == "" || (in.hist < len(in.history) && v == in.history[in.hist])
}

// HistoryPrev shows the previous input.
func (in *input) HistoryPrev() {
	if in.hist > len(in.history) {
		in.hist = len(in.history)
	}
	if in.hist == 0 {
		return
	}
	in.hist--
	in.SetValue(in.history[in.hist])
}

// HistoryNext shows the next input, or an empty box after the last.
func (in *input) HistoryNext() {
	if in.hist >= len(in.history) {
		return
	}
	in.hist++
	if in.hist == len(in.history) {
		in.SetValue("")
		return
	}
	in.SetValue(in.history[in.hist])
}

// mentionPrefix returns the @word being typed at the end of the text.
func (in *input) mentionPrefix() (string, bool) {
	v := in.ta.Value()
	i := strings.LastIndexAny(v, " \n\t")
	word := v[i+1:]
	if len(word) < 1 || word[0] != '@' {
		return "", false
	}
	return strings.ToLower(word[1:]), true
}

// completing returns the word being completed at the end of the text and
// what it may become: an @word completes agent names, the argument of /mode
// the modes the engine knows.
func (in *input) completing() (string, []string, bool) {
	if rest, ok := strings.CutPrefix(in.ta.Value(), "/mode "); ok && !strings.ContainsAny(rest, " \n\t") {
		return strings.ToLower(rest), in.modes, true
	}
	pre, ok := in.mentionPrefix()
	return pre, in.names, ok
}

// cycling reports whether Tab is cycling through names (and the text has
// not been changed since).
func (in *input) cycling() bool {
	return len(in.cycle) > 0 && in.ta.Value() == in.cycleFor
}

// Suggestions lists the @names (or /mode names) that complete the word being typed (while
// cycling: the names Tab goes through).
func (in *input) Suggestions() []string {
	if in.cycling() {
		return in.cycle
	}
	pre, names, ok := in.completing()
	if !ok {
		return nil
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, pre) && n != pre {
			out = append(out, n)
		}
	}
	return out
}

// Complete extends the @word being typed: to the name if only one fits,
// else to the candidates' common prefix; when that adds nothing, Tab cycles
// through the names. It reports whether it did anything.
func (in *input) Complete() bool {
	pre, _, _ := in.completing()
	if in.cycling() {
		in.cycleAt = (in.cycleAt + 1) % len(in.cycle)
		in.setCycled(pre)
		return true
	}
	cands := in.Suggestions()
	if len(cands) == 0 {
		return false
	}
	common := cands[0]
	for _, c := range cands[1:] {
		for !strings.HasPrefix(c, common) {
			common = common[:len(common)-1]
		}
	}
	if len(cands) == 1 {
		common += " "
	}
	if common == pre {
		in.cycle, in.cycleAt = cands, 0
		in.setCycled(pre)
		return true
	}
	v := in.ta.Value()
	in.SetValue(v[:len(v)-len(pre)] + common)
	return true
}

// setCycled replaces the @word (now pre) with the current cycled name.
func (in *input) setCycled(pre string) {
	v := in.ta.Value()
	in.SetValue(v[:len(v)-len(pre)] + in.cycle[in.cycleAt])
	in.cycleFor = in.ta.Value()
}

// View renders the box, exactly width × Height().
func (in *input) View() []string {
	if in.dirty || in.view == nil {
		in.view = fitLines(splitLines(in.ta.View()), in.width, in.Height())
		in.dirty = false
	}
	return in.view
}

// slashCommand is a parsed /command line.
type slashCommand struct {
	Name string // without the slash: mode, new, sessions, fork, export, agents, help
	Arg  string
}

// parseSlash reads a line starting with "/" (and exit/quit, which act like
// /quit, as in the REPL).
func parseSlash(line string) (slashCommand, bool) {
	line = strings.TrimSpace(line)
	if line == "exit" || line == "quit" {
		return slashCommand{Name: "quit"}, true
	}
	if !strings.HasPrefix(line, "/") || strings.HasPrefix(line, "//") {
		return slashCommand{}, false
	}
	name, arg, _ := strings.Cut(line[1:], " ")
	return slashCommand{Name: strings.ToLower(name), Arg: strings.TrimSpace(arg)}, true
}
