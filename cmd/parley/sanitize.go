package main

import "github.com/charmbracelet/x/ansi"

// sanitize removes escape sequences and control characters (other than
// newline and tab) from text a model or provider sent, so it can never drive
// the terminal.
func sanitize(s string) string {
	s = ansi.Strip(s)
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if r == '\n' || r == '\t' || (r >= 0x20 && r != 0x7f && !(r >= 0x80 && r < 0xa0)) {
			out = append(out, r)
		}
	}
	return string(out)
}
