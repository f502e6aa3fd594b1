package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"
)

// Copying: y copies the selected turn (the transcript's, or the focused
// panel's) as the Markdown it was written in, Y its last code block, both
// through OSC 52: the terminal puts it on the clipboard, over SSH and in
// tmux too (with set-clipboard on). v releases the mouse so that the
// terminal's own selection works, until v or Esc.

// maxCopy bounds what one copy sends: terminals drop longer OSC 52
// sequences (a runaway answer is exported with /export instead).
const maxCopy = 1 << 20

// copyKey handles y, Y and v where a turn can be selected; false: not one
// of them.
func (m *Model) copyKey(msg tea.KeyPressMsg, en transcript.Entry, ok bool) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Select):
		m.selecting = true
		m.setStatus("select mode: the mouse selects text for your terminal · "+shortest(k.Select.Keys())+" or "+shortest(k.Cancel.Keys())+" leaves it", false)
		return nil, true
	case !key.Matches(msg, k.Copy, k.CopyCode):
		return nil, false
	}
	if !ok {
		m.setStatus("no turn selected: "+shortest(k.Up.Keys())+" selects one", true)
		return nil, true
	}
	raw := en.Text
	if h, ok := m.engine.History().Get(en.Turn); ok {
		raw = sanitize.Text(h.Text) // with its tabs: the console's own copy has spaces for them
	}
	text, what := strings.TrimSpace(raw), "turn"
	if key.Matches(msg, k.CopyCode) {
		code, found := lastCodeBlock(raw)
		if !found {
			m.setStatus(fmt.Sprintf("turn %d has no code block (%s copies the whole turn)", en.Turn, shortest(k.Copy.Keys())), true)
			return nil, true
		}
		text, what = code, "the last code block of turn"
	}
	if len(text) > maxCopy {
		m.setStatus(fmt.Sprintf("turn %d is %d KB, more than a terminal's clipboard takes: /export md writes it to a file", en.Turn, len(text)>>10), true)
		return nil, true
	}
	lines := strings.Count(text, "\n") + 1
	plural := "s"
	if lines == 1 {
		plural = ""
	}
	m.setStatus(fmt.Sprintf("copied %s %d (%d line%s) to the clipboard", what, en.Turn, lines, plural), false)
	return tea.SetClipboard(text), true
}

// selectKey handles a key in select mode: v and Esc leave it; false: the
// key goes on as usual (select mode only frees the mouse).
func (m *Model) selectKey(msg tea.KeyPressMsg) bool {
	if !key.Matches(msg, m.keys.Select, m.keys.Cancel) {
		return false
	}
	m.selecting = false
	m.setStatus("the mouse is the console's again", false)
	return true
}

// lastCodeBlock is the body of the last complete ``` fence of a Markdown
// text.
func lastCodeBlock(text string) (string, bool) {
	var body []string
	var last string
	found, open := false, false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			if open {
				last, found = strings.Join(body, "\n"), true
			}
			open, body = !open, nil
			continue
		}
		if open {
			body = append(body, l)
		}
	}
	return last, found
}
