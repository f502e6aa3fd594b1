package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Sanitize makes text from a model or provider safe to draw: escape
// sequences and control characters are removed (newlines are kept, tabs
// become spaces, carriage returns go), so nothing a model sends can move the
// cursor, change colours, set the title or otherwise drive the terminal, or
// (see below) be drawn wider than the layout measured it.
func Sanitize(s string) string {
	if isPlain(s) {
		return s
	}
	s = ansi.Strip(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteRune(r)
		case r == '\t':
			b.WriteString("    ")
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			// C0, DEL and C1 controls: dropped.
		case r == '\u2028' || r == '\u2029':
			b.WriteByte('\n')
		case r == '\u200d' || r == '\ufe0f' || (r >= 0x1f3fb && r <= 0x1f3ff):
			// Emoji joiners, the emoji presentation selector and skin tones:
			// terminals disagree about how wide the sequences they build are
			// (a grapheme-aware one draws "⚠️" two cells wide, tmux, xterm and
			// VTE one), and Bubble Tea's renderer measures the way most
			// terminals draw unless the terminal says otherwise. Without
			// them every terminal draws the same width the layout measured;
			// the symbols remain.
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPlain reports whether s is printable ASCII plus newlines: the common case,
// which needs no copy.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			continue
		}
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}
