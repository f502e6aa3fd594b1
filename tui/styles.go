package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// ink is a style reduced to the escape sequences around its text. Styling
// a piece of a line is then two string joins, not a lipgloss render (which
// measures and wraps, and costs microseconds each: too much at 60 frames a
// second). Only single-line text is painted with it.
type ink struct{ pre, post string }

func newInk(st lipgloss.Style) ink {
	r := st.Render("\x00")
	i := strings.IndexByte(r, 0)
	if i < 0 {
		return ink{}
	}
	return ink{pre: r[:i], post: r[i+1:]}
}

// Render paints s.
func (k ink) Render(s string) string {
	if s == "" {
		return ""
	}
	return k.pre + s + k.post
}
