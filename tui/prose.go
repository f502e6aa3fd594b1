package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// proseStyle is how glamour draws a paragraph of plain words: each row
// wrapped in the same style. It is read from glamour itself (a one-word
// paragraph), not written down here.
type proseStyle struct {
	open, close string
	ok          bool // glamour drew the word as open+word+close
	// bullet is what glamour draws for "- " before an item's words, in the
	// same style ("" when it draws an item otherwise).
	bullet string
}

// plainProse renders a paragraph of plain words without glamour: the rows
// glamour would give (the words wrapped as its paragraphs wrap them, each
// row in the paragraph's style), byte for byte once tight (tightSGR). Only
// for text whose every character glamour shows as is (isPlainProse) and
// whose rows fall short of the width; ok is false for anything else.
func (m *markdown) plainProse(text string, width int) ([]string, bool) {
	// A space at the end (a streamed word and the space after it, as most
	// chunks end) shows nothing where the rows fall short of the width.
	if t, ok := strings.CutSuffix(text, " "); ok && !strings.HasSuffix(t, " ") {
		text = t
	}
	if !isPlainProse(text) || !m.style().ok {
		return nil, false
	}
	return m.proseRows(text, width)
}

// style reads, once, how glamour draws a paragraph of words and a bullet.
func (m *markdown) style() *proseStyle {
	if m.prose != nil {
		return m.prose
	}
	m.prose = &proseStyle{}
	const word = "word"
	if rows := m.renderGlamour(word, 40); len(rows) == 1 {
		open, close, found := strings.Cut(rows[0], word)
		m.prose.open, m.prose.close, m.prose.ok = open, close, found && !strings.Contains(close, word)
	}
	if rows := m.renderGlamour("- "+word, 40); len(rows) == 1 && m.prose.ok {
		if head, ok := strings.CutSuffix(rows[0], word+m.prose.close); ok {
			if b, ok := strings.CutPrefix(head, m.prose.open); ok && b != "" && !strings.Contains(b, "\x1b") {
				m.prose.bullet = b
			}
		}
	}
	return m.prose
}

// plainItem renders a bullet item of plain words ("- word …") that fits
// one row without glamour: glamour draws it as the bullet and the words in
// the paragraph's style. (A longer item wraps as glamour wraps items, its
// bullet counted late: glamour draws it; once it has wrapped, the open
// block renders only its last row, a paragraph's.) ok is false for
// anything else.
func (m *markdown) plainItem(text string, width int) ([]string, bool) {
	words, ok := strings.CutPrefix(text, "- ")
	if !ok {
		return nil, false
	}
	if t, ok := strings.CutSuffix(words, " "); ok && !strings.HasSuffix(t, " ") {
		words = t
	}
	if !isPlainProse(words) || m.style().bullet == "" {
		return nil, false
	}
	row := m.prose.bullet + words
	if cellWidth(row) > width-2 {
		return nil, false
	}
	return []string{m.prose.open + row + m.prose.close}, true
}

// proseRows wraps plain text as glamour wraps a paragraph, each row in its
// style.
func (m *markdown) proseRows(text string, width int) ([]string, bool) {
	rows := splitLines(ansi.Wrap(text, width, ""))
	for i, r := range rows {
		// A row that fills the width (a space at its end or not) is where
		// glamour's two wraps (paragraph, then document) may keep or drop
		// that space: glamour draws it.
		if len(r) >= width || strings.HasSuffix(r, " ") {
			return nil, false
		}
		rows[i] = m.prose.open + r + m.prose.close
	}
	return rows, true
}

// isPlainProse reports whether glamour reads text as one paragraph of
// words and shows every character of it as is: ASCII letters, digits,
// single spaces and plain punctuation (plainRun), starting with a letter,
// not ending in a space, no "www" (an autolink).
func isPlainProse(text string) bool {
	if !plainRun(text) || strings.HasSuffix(text, " ") || strings.Contains(text, "  ") {
		return false
	}
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return false
		}
	}
	return !strings.Contains(strings.ToLower(text), "www")
}
