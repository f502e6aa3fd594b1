package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Find: Ctrl+F (or / where the input is not focused, or /search TEXT from
// the input) searches every loaded turn of the transcript as the query is
// typed. Matches are highlighted where they are drawn; Enter or n goes to
// the next one, Shift+Enter or N to the previous, with a "3/17" count on
// the rule; Esc goes back to where the view was.

// finder is the transcript search: the query, every match, which one is
// current, and the view it started from.
type finder struct {
	query  string
	typing bool // keys edit the query (else n/N move and others close)
	hits   []findHit
	cur    int // index in hits; -1 before the first move
	back   transcriptView
	focus  focusArea
}

// findHit is one occurrence of the query: its turn and its rank among the
// turn's occurrences.
type findHit struct{ turn, nth int }

// transcriptView is where the transcript was: its anchor and selection.
type transcriptView struct {
	follow      bool
	top, topRow int
	sel         int
}

func (t *transcriptPane) view() transcriptView {
	return transcriptView{follow: t.follow, top: t.top, topRow: t.topRow, sel: t.sel}
}

func (t *transcriptPane) setView(v transcriptView) {
	t.follow, t.top, t.topRow, t.sel = v.follow, v.top, v.topRow, v.sel
}

// openFind starts a search, from the view as it is.
func (m *Model) openFind(query string, typing bool) {
	if m.find == nil {
		m.find = &finder{back: m.tr.view(), focus: m.focus}
	}
	m.find.typing = typing
	m.setFind(query)
	if !typing {
		m.findMove(1)
	}
}

// setFind changes the query and finds its matches (case does not count).
func (m *Model) setFind(query string) {
	f := m.find
	f.query, f.hits, f.cur = query, nil, -1
	m.tr.mark = strings.ToLower(query)
	if query == "" {
		return
	}
	q := strings.ToLower(query)
	for turn := m.tr.First(); turn <= m.tr.Len(); turn++ {
		en, ok := m.tr.Entry(turn)
		if !ok {
			continue
		}
		n := strings.Count(strings.ToLower(ansi.Strip(en.Text)), q)
		for k := range n {
			f.hits = append(f.hits, findHit{turn: turn, nth: k})
		}
	}
}

// findMove goes to the next (d=1) or previous (d=-1) match, round the
// ends. The first move goes to the last match at or above the view: the
// one nearest to what was being read.
func (m *Model) findMove(d int) {
	f := m.find
	if len(f.hits) == 0 {
		return
	}
	if f.cur < 0 {
		f.cur = len(f.hits) - 1
		if !f.back.follow {
			bottom := m.tr.base + max(m.tr.lastShown, m.tr.top) + 1
			for f.cur > 0 && f.hits[f.cur].turn > bottom {
				f.cur--
			}
		}
		if d < 0 {
			f.cur = (f.cur + 1) % len(f.hits) // previous of "after it"
		}
	} else {
		f.cur = (f.cur + d + len(f.hits)) % len(f.hits)
	}
	h := f.hits[f.cur]
	m.setFocus(focusTranscript)
	m.tr.selectTurn(h.turn, m.tr.mark, h.nth)
}

// closeFind ends the search; back returns the view to where it was.
func (m *Model) closeFind(back bool) tea.Cmd {
	f := m.find
	m.find, m.tr.mark = nil, ""
	if !back {
		return nil
	}
	m.tr.setView(f.back)
	return m.setFocus(f.focus)
}

// findKey handles a key while the search is open; false: the search has
// closed and the key goes on as usual.
func (m *Model) findKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	f, k := m.find, m.keys
	switch {
	case key.Matches(msg, k.Cancel):
		return m.closeFind(true), true
	case key.Matches(msg, k.FindPrev) && !(f.typing && isText(msg)): // while typing, N is a letter
		m.findMove(-1)
		f.typing = false
		return nil, true
	case key.Matches(msg, k.FindNext) && !(f.typing && isText(msg)):
		m.findMove(1)
		f.typing = false
		return nil, true
	case key.Matches(msg, k.Find):
		f.typing = true
		return nil, true
	}
	if !f.typing {
		m.closeFind(false) // the view stays at the match
		return nil, false
	}
	switch {
	case msg.Code == tea.KeyBackspace:
		if r := []rune(f.query); len(r) > 0 {
			m.setFind(string(r[:len(r)-1]))
		}
	case msg.Text != "" && (msg.Mod == 0 || msg.Mod == tea.ModShift):
		m.setFind(f.query + Sanitize(msg.Text))
	}
	return nil, true
}

// findRule is the rule's text while the search is open, in w cells: the
// keys go when they do not fit.
func (m *Model) findRule(w int) string {
	f := m.find
	q := " /" + f.query
	if f.typing {
		q += "▏"
	}
	count := "no match"
	switch {
	case f.query == "":
		count = "type to search the transcript"
	case len(f.hits) > 0 && f.cur < 0:
		count = fmt.Sprintf("%d matches", len(f.hits))
	case len(f.hits) > 0:
		count = fmt.Sprintf("%d/%d", f.cur+1, len(f.hits))
	}
	line := m.th.warnBold.Render(q) + m.th.warn.Render(" "+count+" ")
	k := m.keys
	back := shortest(k.Cancel.Keys()) + " back "
	for _, keys := range []string{
		"· " + k.FindNext.Help().Key + " next · " + k.FindPrev.Help().Key + " previous · " + back,
		"· " + shortest(k.FindNext.Keys()) + "/" + shortest(k.FindPrev.Keys()) + " · " + back,
	} {
		if cellWidth(line)+cellWidth(keys)+2 <= w {
			return line + m.th.muted.Render(keys)
		}
	}
	return line
}

// selectTurn selects a turn and scrolls so that its nth line holding mark
// is on screen (its start when the match is not on one line).
func (t *transcriptPane) selectTurn(turn int, mark string, nth int) {
	i := turn - 1 - t.base
	if i < 0 || i >= len(t.entries) {
		return
	}
	t.sel = i
	t.reveal()
	lines := t.item(i)
	row, seen := -1, 0
	for r, l := range lines {
		if c := strings.Count(strings.ToLower(ansi.Strip(l)), mark); c > 0 {
			if seen+c > nth {
				row = r
				break
			}
			seen += c
		}
	}
	if row < 0 || (t.follow && t.Shows(turn) && row >= len(lines)-t.height) {
		return // on screen already, or not on one line
	}
	t.follow, t.top, t.topRow = false, i, max(row-t.height/2, 0)
}

// highlight marks every occurrence of mark (lower case) in a drawn line.
func (th *theme) highlight(line, mark string) string {
	if mark == "" {
		return line
	}
	plain := ansi.Strip(line)
	lower := strings.ToLower(plain)
	if len(lower) != len(plain) || !strings.Contains(lower, mark) {
		return line // a case change that moves bytes: left as it is
	}
	var b strings.Builder
	cell, from := 0, 0
	for {
		j := strings.Index(lower[from:], mark)
		if j < 0 {
			break
		}
		start := cell + ansi.StringWidth(plain[from:from+j])
		end := start + ansi.StringWidth(plain[from+j:from+j+len(mark)])
		b.WriteString(ansi.Cut(line, cell, start))
		b.WriteString(th.found.Render(plain[from+j : from+j+len(mark)]))
		cell, from = end, from+j+len(mark)
	}
	b.WriteString(ansi.Cut(line, cell, ansi.StringWidth(plain)))
	return b.String()
}
