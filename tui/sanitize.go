package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Sanitize makes text from a model or provider safe to draw: escape
// sequences and control characters are removed (newlines are kept, tabs
// become spaces, carriage returns go), so nothing a model sends can move the
// cursor, change colours, set the title or otherwise drive the terminal.
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
