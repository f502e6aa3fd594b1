package tui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// The console draws its frame line by line: every component returns exactly
// the lines it was sized for, each exactly as wide as asked. That keeps the
// layout exact at any size and the frame cheap to build.

// fitLine truncates or pads s (which may hold styles) to exactly w cells.
func fitLine(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := cellWidth(s)
	if n > w {
		s = ansi.Truncate(s, w, "…")
		n = ansi.StringWidth(s)
	}
	if n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// fitLines makes exactly h lines of exactly w cells from lines.
func fitLines(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = fitLine(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", max(w, 0))
		}
	}
	return out
}

// splitLines splits rendered text into lines, dropping one trailing newline.
func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// wrapPlain wraps plain text to w cells (words first, long words hard).
func wrapPlain(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	return splitLines(ansi.Wrap(s, w, ""))
}

// padLines makes exactly h lines from lines that are already w cells wide.
func padLines(lines []string, w, h int) []string {
	if len(lines) >= h {
		return lines[:h]
	}
	blankLine := strings.Repeat(" ", max(w, 0))
	for len(lines) < h {
		lines = append(lines, blankLine)
	}
	return lines
}

// drawBox frames content lines in a rounded border drawn in edge, w×h
// cells in all, with title set into the top edge.
func drawBox(content []string, w, h int, edge ink, title string) []string {
	return drawBoxFitted(fitLines(content, max(w-2, 0), max(h-2, 0)), w, h, edge, title)
}

// drawBoxFitted is drawBox for content already (w-2)-wide.
func drawBoxFitted(body []string, w, h int, edge ink, title string) []string {
	return drawBorder(body, w, h, edge, title, roundEdges)
}

func drawBorder(body []string, w, h int, edge ink, title string, e boxEdges) []string {
	if w < 4 || h < 2 {
		return fitLines(body, w, h)
	}
	body = padLines(body, w-2, h-2)
	inner := w - 2
	top := e[0]
	if title != "" {
		t := ansi.Truncate(" "+title+" ", inner-1, "…")
		top += e[4] + t + strings.Repeat(e[4], max(inner-1-ansi.StringWidth(t), 0))
	} else {
		top += strings.Repeat(e[4], inner)
	}
	top += e[1]
	lines := make([]string, 0, h)
	lines = append(lines, edge.Render(top))
	side := edge.Render(e[5])
	for _, l := range body {
		lines = append(lines, side+l+side)
	}
	lines = append(lines, edge.Render(e[2]+strings.Repeat(e[4], inner)+e[3]))
	return lines
}

// heavyBox draws the focused panel: a heavy bold border, so where the keys
// go shows on the screen, not only in the key line.
func heavyBox(body []string, w, h int, edge ink) []string {
	return drawBorder(body, w, h, edge, "", heavyEdges)
}

// boxEdges are a border's characters: corners top-left, top-right,
// bottom-left, bottom-right, then the horizontal and vertical lines.
type boxEdges [6]string

var (
	roundEdges = boxEdges{"╭", "╮", "╰", "╯", "─", "│"}
	heavyEdges = boxEdges{"┏", "┓", "┗", "┛", "━", "┃"}
)

// joinColumns places blocks of equal height side by side.
func joinColumns(blocks ...[]string) []string {
	if len(blocks) == 0 {
		return nil
	}
	h := len(blocks[0])
	out := make([]string, h)
	var b strings.Builder
	for i := 0; i < h; i++ {
		b.Reset()
		for _, blk := range blocks {
			if i < len(blk) {
				b.WriteString(blk[i])
			}
		}
		out[i] = b.String()
	}
	return out
}

// overlayAt draws box over base with its top-left corner at (x, y).
func overlayAt(base, box []string, x, y, width int) {
	for i, l := range box {
		row := y + i
		if row < 0 || row >= len(base) {
			continue
		}
		bw := ansi.StringWidth(l)
		left := ansi.Cut(base[row], 0, x)
		right := ansi.Cut(base[row], x+bw, width)
		base[row] = fitLine(left, x) + l + right
	}
}

// cellWidth is ansi.StringWidth with a fast path for the common case: ASCII,
// escape sequences, and the narrow symbols the console draws with (Latin,
// punctuation, arrows, box drawing, shapes). Anything else (wide, combining
// or joined characters) takes the full grapheme-aware measure.
func cellWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			i = skipEscape(s, i)
			continue
		case c < 0x80:
			if c >= 0x20 && c != 0x7f {
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !narrowRune(r) {
			return ansi.StringWidth(s)
		}
		n++
		i += size
	}
	return n
}

func narrowRune(r rune) bool {
	switch {
	case r >= 0xa0 && r < 0x300, // Latin-1 and Latin extended
		r >= 0x2010 && r < 0x2028,                                                                 // dashes, quotes, bullets, ellipsis
		r >= 0x2190 && r < 0x2200,                                                                 // arrows
		r >= 0x2500 && r < 0x25a0,                                                                 // box drawing and blocks
		r == 0x25cf, r == 0x25b8, r == 0x25a0, r == 0x2713, r == 0x2717, r == 0x2696, r == 0x22ef, // ● ▸ ■ ✓ ✗ ⚖ ⋯
		r >= 0x2800 && r < 0x2900: // braille (spinners)
		return true
	}
	return false
}

// skipEscape returns the index after the escape sequence starting at i.
func skipEscape(s string, i int) int {
	i++
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[': // CSI: parameters, then a final byte 0x40–0x7e
		for i++; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return i
	case ']', 'P', '_', '^': // string sequences end with BEL or ST
		for i++; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return i
	}
	return i + 1
}
