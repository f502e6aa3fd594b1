package tui

import (
	"math"
	"slices"
	"strings"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/debate/sanitize"
)

// markdown renders Markdown to styled lines with one glamour renderer per
// width (building a renderer is costly; rendering is not free either, which
// is why callers cache what they render).
type markdown struct {
	th        *theme // its glamour style, and the styles of what is drawn around it
	renderers map[int]*glamour.TermRenderer
	prose     *proseStyle // how glamour styles a plain paragraph; nil until asked
}

func newMarkdown(th *theme) *markdown {
	return &markdown{th: th, renderers: map[int]*glamour.TermRenderer{}}
}

// setTheme renders in th's style from now on.
func (m *markdown) setTheme(th *theme) {
	m.th, m.prose = th, nil
	clear(m.renderers)
}

// Render returns text rendered for width cells, without leading or trailing
// blank lines. Text that glamour cannot render is shown wrapped as is.
func (m *markdown) Render(text string, width int) []string {
	if width < 8 {
		return wrapPlain(text, max(width, 1))
	}
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if rows, ok := m.plainProse(text, width); ok {
		return rows
	}
	if rows, ok := m.plainItem(text, width); ok {
		return rows
	}
	return m.renderGlamour(text, width)
}

// renderGlamour is Render by glamour, whatever the text.
func (m *markdown) renderGlamour(text string, width int) []string {
	r, err := m.renderer(width)
	if err != nil {
		return wrapPlain(text, width)
	}
	out, err := r.Render(plainFences(text))
	if err != nil {
		return wrapPlain(text, width)
	}
	lines := splitLines(out)
	for i := range lines {
		lines[i] = tightSGR(trimPadding(lines[i]))
	}
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return rewrap(lines, width)
}

// rewrap breaks every line wider than width into lines that fit. Glamour
// makes some: a list item's continuation is wrapped before its marker's
// indent is counted. Cut to the width instead, a panel would lose the end
// of the line ("…than it seem…").
func rewrap(lines []string, width int) []string {
	var out []string
	for i, l := range lines {
		if ansi.StringWidth(l) <= width {
			if out != nil {
				out = append(out, l)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(lines)+1), lines[:i]...)
		}
		for _, part := range strings.Split(ansi.Wrap(l, width, ""), "\n") {
			out = append(out, strings.TrimRight(part, " ")+"\x1b[m")
		}
	}
	if out == nil {
		return lines
	}
	return out
}

// renderer is glamour's renderer for width, built once.
func (m *markdown) renderer(width int) (*glamour.TermRenderer, error) {
	if r := m.renderers[width]; r != nil {
		return r, nil
	}
	r, err := glamour.NewTermRenderer(glamour.WithStyles(m.th.markdown), glamour.WithWordWrap(width))
	if err != nil {
		return nil, err
	}
	m.renderers[width] = r
	return r, nil
}

// trimPadding drops the blank padding glamour adds to every line up to the
// wrap width, styled cell by cell ("\x1b[38;5;252m \x1b[m" per cell): the
// frame pads with plain spaces, at a fraction of the bytes and work.
func trimPadding(l string) string {
	for {
		t := strings.TrimRight(l, " ")
		body, ok := strings.CutSuffix(t, "\x1b[m")
		if !ok {
			return t
		}
		inner := strings.TrimRight(body, " ")
		i := strings.LastIndex(inner, "\x1b[")
		if i < 0 || !isSGR(inner[i:]) {
			return t // the reset closes visible text
		}
		l = inner[:i]
	}
}

// isSGR reports whether s is exactly one Select Graphic Rendition sequence.
func isSGR(s string) bool {
	if len(s) < 3 || !strings.HasPrefix(s, "\x1b[") || s[len(s)-1] != 'm' {
		return false
	}
	for _, c := range s[2 : len(s)-1] {
		if (c < '0' || c > '9') && c != ';' && c != ':' {
			return false
		}
	}
	return true
}

// blank reports whether a styled line shows nothing.
func blank(l string) bool {
	return strings.TrimSpace(ansi.Strip(l)) == ""
}

// maxMarkdownTail bounds the unfinished tail that is rendered as Markdown
// on each change; a longer one (a big code block still open) is drawn as
// plain wrapped text until it completes, so a frame stays cheap.
const maxMarkdownTail = 2048

// streamingText is an answer arriving in pieces. Complete blocks (text up
// to a blank line outside a code fence, or a piece of a block that runs on
// past maxOpenBlock) are rendered as Markdown when a view first shows
// them, from the end (see blockList); the open block is rendered by
// openBlock, at the cost of its last row, so a long answer costs the same
// per frame as a short one and every frame is the answer's full render.
type streamingText struct {
	safe   sanitize.Stream // a rune or escape cut between deltas waits for its rest
	text   strings.Builder
	blocks blockList
	width  int
	final  *finishedText // the finished answer, drawn from its end on demand
	open   openBlock     // the block still arriving
}

func (s *streamingText) Reset() { *s = streamingText{} }

// Append adds a raw delta: it is sanitized here, as a stream, so a
// character or an escape sequence split between two deltas is neither lost
// nor let through.
func (s *streamingText) Append(delta string) {
	s.text.WriteString(strings.ReplaceAll(s.safe.Write(delta), "\t", "    "))
}

func (s *streamingText) String() string {
	if s.final != nil {
		return s.final.text
	}
	return s.text.String()
}

// SetFinal replaces the text with the finished answer (kept once, not
// copied: an answer can be megabytes).
func (s *streamingText) SetFinal(text string) {
	s.Reset()
	s.final = newFinishedText(text)
}

// Tail is at least n of the last lines of Lines (all when there are fewer):
// only the blocks they come from are rendered.
func (s *streamingText) Tail(md *markdown, width, n int) []string {
	if s.final != nil {
		lines, _ := s.final.Tail(md, width, n)
		return lines
	}
	lines, _ := s.tail(md, width, n)
	return lines
}

// Lines renders for width: every block plus the live tail, every line
// exactly width cells wide.
func (s *streamingText) Lines(md *markdown, width int) []string {
	if s.final != nil {
		return s.final.All(md, width)
	}
	lines, _ := s.tail(md, width, math.MaxInt)
	return lines
}

// tail is at least n of the last lines and whether they are all of them.
// reuseOpen gives a block that has just ended the rows the open block
// already has for it: they are its full render (see openBlock), so the
// block is not rendered again when it is first shown.
func (s *streamingText) reuseOpen(text string, from, width int) {
	o := &s.open
	if o.text == "" || s.blocks.width != width {
		return
	}
	for k := from; k < len(s.blocks.blocks); k++ {
		b := s.blocks.blocks[k]
		if !b.plain && strings.TrimLeft(text[b.start:b.end], "\n") == o.text {
			s.blocks.lines[k] = append(slices.Clip(o.frozen), o.rest...)
		}
	}
}

func (s *streamingText) tail(md *markdown, width, n int) ([]string, bool) {
	if width != s.width {
		s.width, s.open = width, openBlock{}
	}
	text := s.text.String()
	before := len(s.blocks.blocks)
	s.blocks.cut(text, maxOpenBlock, false)
	s.reuseOpen(text, before, width)
	var open []string
	tail := heldBack(strings.TrimLeft(text[s.blocks.done:], "\n"))
	switch {
	case strings.TrimSpace(tail) == "":
	case s.blocks.fence:
		open = fitAll(wrapPlain(tail, width), width) // the rest of a code block cut into pieces
	default:
		open = s.open.Lines(md, tail, width)
	}
	var above []string
	all := true
	if len(s.blocks.blocks) > 0 {
		above, all = s.blocks.Tail(md, text, width, n-len(open))
	}
	if strings.TrimSpace(tail) == "" {
		return above, all
	}
	out := make([]string, 0, len(above)+len(open)+1)
	out = append(out, above...)
	if len(out) > 0 && !s.blocks.piece {
		out = append(out, strings.Repeat(" ", width))
	}
	return append(out, open...), all
}

// fitAll fits every line to exactly w cells, in place.
func fitAll(lines []string, w int) []string {
	for i, l := range lines {
		lines[i] = fitLine(l, w)
	}
	return lines
}
