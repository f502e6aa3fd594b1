package tui

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// openBlock renders the block still arriving (the text after the last
// blank line) so that every frame is exactly the block's full render, at
// the cost of its last row rather than of its length.
//
// Greedy wrapping never moves a row once a later row exists: appending
// words changes only the last row. So while the block is one plain line (a
// paragraph whose last row holds no inline markup), the rows above the last
// are kept as they are and only the text from the last row's first
// character on is rendered again, with the new words. Anything else — a
// newline (a new line may change the block's kind), a character that may
// open or close an inline span, text that does not extend the last — is
// rendered whole, and the last row is anchored again from that render.
//
// A list's items are independent blocks: while the block is a list whose
// last line starts an item, the items above are kept and the last line is
// rendered alone (see anchorItem).
type openBlock struct {
	text   string   // the block as last rendered
	frozen []string // its final rows, fitted
	anchor int      // where in text the rows after frozen start; -1: no anchor
	item   bool     // text[anchor:] is the list's last item, rendered alone
	rest   []string // the rows rendered from text[anchor:] (all rows when anchor < 0), fitted
}

// Lines renders text (the open block, not blank) for width.
func (o *openBlock) Lines(md *markdown, text string, width int) []string {
	if text != o.text {
		if !o.extend(md, text, width) {
			o.renderWhole(md, text, width)
		}
		o.text = text
	}
	out := make([]string, 0, len(o.frozen)+len(o.rest))
	return append(append(out, o.frozen...), o.rest...)
}

// renderWhole renders the block from scratch and anchors its last row.
func (o *openBlock) renderWhole(md *markdown, text string, width int) {
	o.frozen, o.anchor, o.item = nil, -1, false
	if fenceOpen(text) && len(text) > maxMarkdownTail {
		o.rest = fitAll(wrapPlain(text, width), width) // a big open code block: plain until it closes
		return
	}
	rows := md.Render(text, width)
	o.rest = fitAll(append([]string(nil), rows...), width)
	if width < 8 || len(rows) == 0 {
		return
	}
	if !paragraphLine(text) {
		o.anchorItem(md, text, width, rows)
		return
	}
	o.anchorLastRow(md, text, 0, rows, width)
}

// anchorLastRow anchors the last of rows, rendered from text[base:] (a
// paragraph, or a list's last item), on its source: the text's plain end,
// if it shows as is and rendering it alone gives that row, byte for byte.
// The rows above it are then final.
func (o *openBlock) anchorLastRow(md *markdown, text string, base int, rows []string, width int) bool {
	last := rows[len(rows)-1]
	shown, src := strings.TrimRight(ansi.Strip(last), " "), strings.TrimRight(text, " ")
	from := len(src) - len(shown)
	if from < base || !strings.HasSuffix(src, shown) || !plainRun(text[from:]) {
		return false
	}
	if alone := md.Render(text[from:], width); len(alone) != 1 || alone[0] != last {
		return false
	}
	n := len(rows) - 1
	if anySpaceEnd(rows[:n]) {
		return false
	}
	o.frozen = append(slices.Clip(o.frozen), o.rest[:n]...)
	o.rest, o.anchor, o.item = o.rest[n:], from, false
	return true
}

// anySpaceEnd reports whether a row shows a space at its end: wrapping
// after two spaces keeps one there until the next word arrives, so such a
// row is not final yet.
func anySpaceEnd(rows []string) bool {
	for _, r := range rows {
		if strings.HasSuffix(ansi.Strip(r), " ") {
			return true
		}
	}
	return false
}

// extend renders only what changed when text adds plain words to the
// anchored last row; false when the whole block must be rendered.
func (o *openBlock) extend(md *markdown, text string, width int) bool {
	if o.anchor < 0 || !strings.HasPrefix(text, o.text) {
		return false
	}
	if o.item {
		return o.extendItem(md, text, width)
	}
	if !plainRun(text[o.anchor:]) {
		return false
	}
	rows := md.Render(text[o.anchor:], width)
	if len(rows) == 0 {
		return false
	}
	base := o.anchor
	o.rest = fitAll(append([]string(nil), rows...), width)
	o.freezeAbove(text, base, rows)
	return true
}

// freezeAbove keeps the rows above the last of rows (rendered from
// text[from:]) as final and anchors the last one, when their visible text
// is the source's, character for character; otherwise it leaves them to be
// rendered again.
func (o *openBlock) freezeAbove(text string, from int, rows []string) {
	src := text[from:]
	pos := 0
	for i, r := range rows {
		pos = skipSpaces(src, pos)
		shown := strings.TrimRight(ansi.Strip(r), " ")
		if !strings.HasPrefix(src[pos:], shown) {
			return
		}
		if i == len(rows)-1 {
			if strings.TrimRight(src[pos:], " ") != shown || !plainRun(src[pos:]) {
				return
			}
			break
		}
		pos += len(shown)
	}
	n := len(rows) - 1
	if anySpaceEnd(rows[:n]) {
		return
	}
	o.frozen = append(o.frozen, o.rest[:n]...)
	o.rest = o.rest[n:]
	o.anchor = from + pos
}

func skipSpaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// plainRun reports whether s, rendered on its own as a paragraph, gives the
// rows it gives inside the block: it starts with a letter (not a list
// marker, a heading, a quote, a number that could open a list) and holds no
// newline and no character that can open or close an inline span, a link,
// an entity, an autolink or an emoji shortcode.
func plainRun(s string) bool {
	first, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsLetter(first) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			continue // every Markdown mark is ASCII
		}
		if !(c == ' ' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(",.;?'\"%$()-", c) >= 0) {
			return false
		}
	}
	return true
}

// paragraphLine reports whether text is one line that Markdown reads as a
// paragraph (rather than a heading, a list item, a quote, a table row, a
// fence or a thematic break): it starts with a letter, a non-ASCII
// character, a code span or a link, or an emphasis mark that opens a word.
func paragraphLine(text string) bool {
	if text == "" || strings.IndexByte(text, '\n') >= 0 {
		return false
	}
	first, size := utf8.DecodeRuneInString(text)
	switch {
	case first >= utf8.RuneSelf || unicode.IsLetter(first) || first == '`' || first == '[':
		return true
	case first == '*' || first == '_':
		next, _ := utf8.DecodeRuneInString(text[size:])
		return next != ' ' && strings.IndexFunc(text, unicode.IsLetter) >= 0
	}
	return false
}
