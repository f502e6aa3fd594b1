package sanitize

import (
	"strings"
	"unicode/utf8"
)

// Clip cuts s to at most maxBytes, ellipsis included, on a character
// boundary (half a character would reach the model as U+FFFD).
func Clip(s string, maxBytes int) string {
	if len(s) <= maxBytes {
		return s
	}
	const ellipsis = "…"
	cut := max(maxBytes-len(ellipsis), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// FirstLine is the first line of s, trimmed, cut to at most max characters
// (an ellipsis last when cut).
func FirstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}
