package tui

import (
	"encoding/json"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// itemTail is at least n of entry i's last lines (all when it has fewer),
// and whether they are all of them: of a long finished answer, only the
// blocks they come from are rendered.
func (t *transcriptPane) itemTail(i, n int) ([]string, bool) {
	en := t.entries[i]
	w := t.bodyWidth()
	if s := t.live[en.Turn]; s != nil && en.Turn != 0 {
		// A streaming answer: its last lines, rendered from its end (a
		// runaway answer's start is never drawn while the view follows).
		body, all := s.tail(t.md, w, n)
		if all {
			body = append([]string{fitLine(t.header(en), w)}, body...)
		}
		return append(body[:len(body):len(body)], strings.Repeat(" ", w)), all
	}
	if c, ok := t.cache[en.Turn]; (ok && c.width == w) || en.Turn == 0 || !lazy(en) {
		lines := t.item(i)
		return lines[max(len(lines)-n, 0):], len(lines) <= n
	}
	body, all := t.answer(en).Tail(t.md, w, n)
	if all {
		lines := t.item(i) // the blocks are rendered: this only assembles them
		return lines[max(len(lines)-n, 0):], len(lines) <= n
	}
	return append(body[:len(body):len(body)], strings.Repeat(" ", w)), false
}

// followView draws the end of the history from the bottom up, rendering
// only what fits (a long last answer costs its last screenful).
func (t *transcriptPane) followView() []string {
	h := t.height
	var parts [][]string
	t.firstShown, t.lastShown, t.lastFull = 0, -1, -1
	need, topCut := h, false
	i := len(t.entries) - 1
	for ; i >= 0 && need > 0; i-- {
		lines, all := t.itemTail(i, need)
		if len(lines) > need {
			lines, all = lines[len(lines)-need:], false
		}
		topCut = !all
		if len(lines) > 0 && t.lastShown < 0 {
			t.lastShown = i
		}
		if all && t.lastFull < 0 {
			t.lastFull = i
		}
		parts = append(parts, t.gutter(i, lines))
		need -= len(lines)
		t.firstShown = i
	}
	// The anchor is exact again once the view leaves the bottom; until then
	// topRow only says whether the top entry starts above the view.
	t.top, t.topRow = t.firstShown, 0
	if topCut {
		t.topRow = 1
	}
	rows := make([]string, 0, h)
	t.rowEntry = t.rowEntry[:0]
	for k := len(parts) - 1; k >= 0; k-- {
		rows = append(rows, parts[k]...)
		for range parts[k] {
			t.rowEntry = append(t.rowEntry, len(t.entries)-1-k)
		}
	}
	return padLines(rows, t.width, h)
}

// gutter prefixes entry i's lines with the selection gutter.
func (t *transcriptPane) gutter(i int, lines []string) []string {
	g := "  "
	if i == t.sel {
		g = t.md.th.selected.Render("▌ ")
	}
	out := make([]string, len(lines))
	for k, l := range lines {
		out[k] = g + t.md.th.highlight(l, t.mark)
	}
	return out
}

// voteSummary pulls the one-line reason out of a vote's JSON answer.
func voteSummary(text string) string {
	var v map[string]any
	if json.Unmarshal([]byte(text), &v) != nil {
		return ""
	}
	for _, k := range []string{"summary", "reasoning", "reason", "rationale"} {
		if s, ok := v[k].(string); ok && s != "" {
			return Sanitize(s)
		}
	}
	return ""
}

// verdictBanner draws a MAGI verdict (already sanitized) as a coloured
// banner.
func (th *theme) verdictBanner(verdict, text string, w int) []string {
	st := th.warnBanner
	switch {
	case strings.HasPrefix(verdict, "APPROVE"):
		st = th.okBanner
	case strings.HasPrefix(verdict, "REJECT"):
		st = th.errBanner
	}
	label := " ⚖ VERDICT: " + verdict + " "
	head := st.Render(fitLine(label, min(ansi.StringWidth(label), w)))
	lines := []string{head}
	if text = strings.TrimSpace(text); text != "" {
		lines = append(lines, wrapPlain(text, w)...)
	}
	return lines
}
