package tui

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// anchorItem anchors the last line of a list block (see listTail) when
// rendering it alone gives the block's last rows, byte for byte: the rows
// above are then the items before it, final, and only the last item is
// rendered again as words arrive.
func (o *openBlock) anchorItem(md *markdown, text string, width int, rows []string) {
	from, ok := listTail(text)
	if !ok {
		return
	}
	alone := md.Render(text[from:], width)
	n := len(rows) - len(alone)
	if len(alone) == 0 || n <= 0 || !slices.Equal(rows[n:], alone) {
		return
	}
	o.frozen, o.rest, o.anchor, o.item = slices.Clip(o.rest[:n]), o.rest[n:], from, true
	o.anchorItemRow(md, text, width, alone)
}

// anchorItemRow anchors the last row of the last item, rendered alone as
// rows, when the item has wrapped and that row is plain words: an item's
// rows wrap as a paragraph's do, so from there on the item costs what a
// paragraph's last row costs.
func (o *openBlock) anchorItemRow(md *markdown, text string, width int, rows []string) {
	if len(rows) > 1 {
		o.anchorLastRow(md, text, o.anchor+1, rows, width)
	}
}

// extendItem renders the anchored last item again alone, while it stays
// one line that cannot reach the items above (a link reference would).
func (o *openBlock) extendItem(md *markdown, text string, width int) bool {
	last := text[o.anchor:]
	if strings.ContainsAny(last, "\n[") {
		return false
	}
	rows := md.Render(last, width)
	if len(rows) == 0 {
		return false
	}
	o.rest = fitAll(append([]string(nil), rows...), width)
	o.anchorItemRow(md, text, width, rows)
	return true
}

// listTail finds the start of the last line of text when text is a tight
// list whose last line opens an item of it: every line opens an item of
// the same kind at the first column or is indented (an item's own
// content), no line is blank, no code fence is left open, and the last
// item's text is one line starting with a letter with no link. Such a line
// is a block of its own: text appended to it (no newline, no link) changes
// none of the items above, and renders as it would alone.
func listTail(text string) (int, bool) {
	from := strings.LastIndexByte(text, '\n') + 1
	last := text[from:]
	kind, n := itemMarker(last)
	if from == 0 || kind == 0 || strings.IndexByte(last, '[') >= 0 {
		return 0, false
	}
	if first, _ := utf8.DecodeRuneInString(last[n:]); !unicode.IsLetter(first) {
		return 0, false
	}
	above := text[:from-1]
	if k, _ := itemMarker(above); k != kind || fenceOpen(above) {
		return 0, false
	}
	for l := range strings.SplitSeq(above, "\n") {
		if strings.TrimSpace(l) == "" {
			return 0, false
		}
		if k, _ := itemMarker(l); k != kind && l[0] != ' ' {
			return 0, false
		}
	}
	return from, true
}

// itemMarker reads the list item marker line opens at its first column:
// its kind ('-', '*' or '+' for a bullet; '.' or ')' after a number) and
// its length with the space after it; kind 0 when there is none (a
// thematic break such as "- - -" is none either).
func itemMarker(line string) (kind byte, n int) {
	if line == "" {
		return 0, 0
	}
	switch c := line[0]; {
	case c == '-' || c == '*' || c == '+':
		kind, n = c, 1
	case '0' <= c && c <= '9':
		for n < len(line) && n < 9 && '0' <= line[n] && line[n] <= '9' {
			n++
		}
		if n == len(line) || (line[n] != '.' && line[n] != ')') {
			return 0, 0
		}
		kind, n = line[n], n+1
	default:
		return 0, 0
	}
	if n == len(line) || line[n] != ' ' || strings.Trim(line, "-*_ ") == "" {
		return 0, 0
	}
	return kind, n + 1
}
