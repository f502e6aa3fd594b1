package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/parleyhq/parley/debate/transcript"
)

// overlay is a framed, scrollable box drawn over the console: one turn in
// full, the agent list, or the full key list.
type overlay struct {
	title  string
	lines  []string
	offset int
	width  int
	height int
	// build, when set, lays the text out for an inner width: the lines are
	// built again when the box changes width, so nothing is ever cut.
	build    func(w int) []string
	builtFor int
}

// SetSize sets the box's outer size.
func (o *overlay) SetSize(w, h int) {
	o.width, o.height = w, h
	if inner := max(w-2, 1); o.build != nil && o.builtFor != inner {
		o.lines, o.builtFor = o.build(inner), inner
	}
	o.Scroll(0)
}

func (o *overlay) room() int { return max(o.height-3, 1) } // borders and the hint line

// Scroll moves by n lines, within bounds.
func (o *overlay) Scroll(n int) {
	o.offset = min(max(o.offset+n, 0), max(len(o.lines)-o.room(), 0))
}

func (o *overlay) Home() { o.offset = 0 }
func (o *overlay) End()  { o.Scroll(len(o.lines)) }

// View draws the box.
func (o *overlay) View(th *theme, keys boxKeys) []string {
	end := min(o.offset+o.room(), len(o.lines))
	body := append([]string(nil), o.lines[o.offset:end]...)
	for len(body) < o.room() {
		body = append(body, "")
	}
	pos := ""
	if len(o.lines) > o.room() {
		pos = fmt.Sprintf("%d–%d of %d · ", o.offset+1, end, len(o.lines))
	}
	body = append(body, th.muted.Render(pos+hintLine(keys, max(o.width-2-cellWidth(pos), 1))))
	return drawBox(body, o.width, o.height, th.box, o.title)
}

// turnDetail is the overlay for one entry: everything about it, laid out
// for the box's width when the box is sized.
func turnDetail(en transcript.Entry, md *markdown, clock func(time.Time) string) *overlay {
	name := firstNonEmpty(en.Display, en.Speaker)
	return &overlay{title: fmt.Sprintf("Turn %d · %s", en.Turn, Sanitize(name)),
		build: func(w int) []string { return turnLines(en, md, max(w, 10), clock) }}
}

// turnLines lays out an entry's details for w cells.
func turnLines(en transcript.Entry, md *markdown, w int, clock func(time.Time) string) []string {
	name := firstNonEmpty(en.Display, en.Speaker)
	var lines []string
	const keyW = 10 // "latency   "
	field := func(k, v string) {
		if v == "" {
			return
		}
		for i, l := range wrapPlain(Sanitize(v), max(w-keyW, 1)) {
			if i == 0 {
				l = md.th.muted.Render(fmt.Sprintf("%-*s", keyW, k)) + l
			} else {
				l = strings.Repeat(" ", keyW) + l
			}
			lines = append(lines, l)
		}
	}
	field("speaker", name)
	field("kind", string(en.Kind))
	field("status", string(en.Status))
	if en.Provider != "" || en.Model != "" {
		field("model", strings.Trim(en.Provider+" / "+en.Model, " /"))
	}
	field("mode", en.Mode)
	if en.Round > 0 {
		field("round", fmt.Sprint(en.Round))
	}
	field("time", clock(en.Started))
	if d := en.Latency(); d > 0 {
		field("latency", d.Round(time.Millisecond).String())
	}
	if en.Usage.InputTokens+en.Usage.OutputTokens > 0 {
		field("tokens", fmt.Sprintf("%d in (%d cached) · %d out", en.Usage.InputTokens, en.Usage.CachedTokens, en.Usage.OutputTokens))
	}
	if en.Usage.PriceUnknown {
		field("cost", "? (no price for this model in the configuration)")
	} else if en.Cost > 0 {
		field("cost", fmt.Sprintf("$%.6f", en.Cost))
	}
	field("vote", en.Vote)
	field("error", en.Error)
	if en.Prompt != "" {
		lines = append(lines, "", md.th.bold.Render("Prompt"))
		lines = append(lines, wrapPlain(Sanitize(en.Prompt), w)...)
	}
	for _, c := range en.ToolCalls {
		lines = append(lines, "", md.th.bold.Render("Tool "+Sanitize(c.Tool)))
		params, _ := json.Marshal(c.Parameters)
		lines = append(lines, wrapPlain(Sanitize(string(params)), w)...)
		lines = append(lines, wrapPlain(Sanitize(firstNonEmpty(c.Error, c.Result)), w)...)
	}
	lines = append(lines, "", md.th.bold.Render("Text"))
	text := Sanitize(en.Text)
	if en.Kind == transcript.KindVote || json.Valid([]byte(strings.TrimSpace(text))) {
		lines = append(lines, wrapPlain(text, w)...) // the raw JSON, as the model sent it
	} else {
		lines = append(lines, md.Render(text, w)...)
	}
	return lines
}

// overlayKey handles a key while a box (help, a turn, the agents) is open.
func (m *Model) overlayKey(msg tea.KeyPressMsg) tea.Cmd {
	k, o := m.keys.Box, m.overlay
	switch {
	case key.Matches(msg, m.keys.Quit):
		m.overlay = nil
		return m.quit()
	case key.Matches(msg, k.Close, m.keys.Help):
		m.overlay = nil
	case key.Matches(msg, k.Up):
		o.Scroll(-1)
	case key.Matches(msg, k.Down):
		o.Scroll(1)
	case key.Matches(msg, k.PageUp):
		o.Scroll(-o.room())
	case key.Matches(msg, k.PageDown):
		o.Scroll(o.room())
	case key.Matches(msg, k.Home):
		o.Home()
	case key.Matches(msg, k.End):
		o.End()
	}
	return nil
}
