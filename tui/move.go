package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/parleyhq/parley/debate/transcript"
)

// Moving through the transcript by exchange ([ and ]: the turns a line of
// the user starts) and by speaker ({ and }: the selected turn's speaker's
// turns); g and G are the first and the last turn.

// jumpKey moves the selection for a jump key; false: not one of them.
func (t *transcriptPane) jumpKey(k keyMap, msg tea.KeyPressMsg) bool {
	from := t.sel
	if from < 0 {
		from = t.lastShown
	}
	if from < 0 || from >= len(t.entries) {
		from = t.nextShown(len(t.entries), -1)
	}
	if from < 0 {
		return false
	}
	speaker := t.entries[from].Speaker
	exchange := func(en transcript.Entry) bool { return en.Kind == transcript.KindUser }
	same := func(en transcript.Entry) bool { return en.Speaker == speaker }
	switch {
	case key.Matches(msg, k.PrevExchange):
		t.jump(from, -1, exchange)
	case key.Matches(msg, k.NextExchange):
		t.jump(from, 1, exchange)
	case key.Matches(msg, k.PrevSame):
		t.jump(from, -1, same)
	case key.Matches(msg, k.NextSame):
		t.jump(from, 1, same)
	default:
		return false
	}
	return true
}

// jump selects the next entry from from in direction d that is, and
// scrolls to it; at the end of the history the selection stays.
func (t *transcriptPane) jump(from, d int, is func(transcript.Entry) bool) {
	for j := from + d; j >= 0 && j < len(t.entries); j += d {
		if t.entries[j].Turn != 0 && is(t.entries[j]) {
			t.sel = j
			t.reveal()
			return
		}
	}
	t.sel = from
	t.reveal()
}
