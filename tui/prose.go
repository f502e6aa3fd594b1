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
}

// plainProse renders a paragraph of plain words without glamour: the rows
// glamour would give (the words wrapped as its paragraphs wrap them, each
// row in the paragraph's style), byte for byte once tight (tightSGR). Only
// for text whose every character glamour shows as is (isPlainProse) and
// whose rows fall short of the width; ok is false for anything else.
func (m *markdown) plainProse(text string, width int) ([]string, bool) {
	if !isPlainProse(text) {
		return nil, false
	}
	if m.prose == nil {
		m.prose = &proseStyle{}
		const word = "word"
		if rows := m.renderGlamour(word, 40); len(rows) == 1 {
			open, close, found := strings.Cut(rows[0], word)
			m.prose.open, m.prose.close, m.prose.ok = open, close, found && !strings.Contains(close, word)
		}
	}
	if !m.prose.ok {
		return nil, false
	}
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
