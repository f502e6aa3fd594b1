// Package sanitize makes untrusted text — anything a model, a provider or a
// saved file says — safe to print on a terminal and free of secrets. It is
// the one sanitizer of Parley: the console, the headless output, `sessions
// show` and the exports meant for terminals all use it, and every provider
// error passes its Scrubber (strip first, then scrub keys) before any door
// sees it.
package sanitize

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Text removes escape sequences (CSI, OSC, DCS, …) and control characters
// other than newline and tab, so nothing a model sends can move the cursor,
// change colours, set the title or otherwise drive the terminal. Line and
// paragraph separators become newlines. Emoji joiners, the emoji
// presentation selector and skin-tone modifiers go too: terminals disagree
// about how wide the sequences they build are, and a layout must draw text
// exactly as wide as it measured it; the symbols themselves remain.
// Invisible format controls (see Invisible) are dropped. Bytes that are not
// UTF-8 are dropped.
func Text(s string) string {
	if isPlain(s) {
		return s
	}
	return strip(s)
}

// strip is Text's pass over text that is not plain.
func strip(s string) string {
	s = ansi.Strip(strings.ToValidUTF8(s, ""))
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if kept(r) {
			b.WriteRune(r)
		} else if r == '\u2028' || r == '\u2029' {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// kept reports whether Text keeps r as it is.
func kept(r rune) bool {
	switch {
	case r == '\n', r == '\t':
		return true
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return false // C0, DEL and C1 controls (ESC and CSI among them)
	case r == '\u2028' || r == '\u2029':
		return false // written as newlines
	case r == '\u200d' || r == '\ufe0f' || (r >= 0x1f3fb && r <= 0x1f3ff):
		return false
	case Invisible(r):
		return false // bidi overrides and hidden characters (Trojan Source)
	case r == utf8.RuneError:
		return false // bytes that were not UTF-8, or their replacement: no information
	}
	return true
}

// Visible removes the invisible format controls (see Invisible) and
// nothing else: for text that reaches a person through a page, where markup
// is escaped separately and emoji sequences render whole, so the zero-width
// joiner and presentation selectors stay. Stripping a rune that is only
// ever inside a string keeps JSON and HTML valid, so it may run over a
// whole encoded document.
func Visible(s string) string {
	if !hasInvisible(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if !Invisible(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Invisible reports whether r is a format control that changes how the
// text around it is ordered or hides text without showing anything itself:
// the bidi embeddings, overrides, isolates and marks (U+202A–202E,
// U+2066–2069, U+200E/200F, U+061C: CVE-2021-42574, "Trojan Source"), the
// zero-width space and word joiners, the invisible operators, the
// deprecated format controls, the byte-order mark, the interlinear
// annotation controls and the tag characters (which can carry a whole
// hidden ASCII message). The zero-width joiner and non-joiner stay: emoji
// sequences and Persian or Indic spelling need them, and they hide nothing.
func Invisible(r rune) bool {
	switch {
	case r == '\u061c', r == '\u180e', r == '\u200b', r == '\u200e', r == '\u200f':
		return true
	case r >= '\u202a' && r <= '\u202e':
		return true
	case r >= '\u2060' && r <= '\u206f': // joiners, invisible operators, isolates, deprecated controls
		return true
	case r == '\ufeff', r >= '\ufff9' && r <= '\ufffb':
		return true
	case r >= 0xe0000 && r <= 0xe007f: // tags
		return true
	}
	return false
}

// hasInvisible reports whether s holds an Invisible rune; every one of
// them is encoded with a lead byte of 0xD8 (U+061C), 0xE1, 0xE2, 0xEF or
// 0xF3, so ASCII text is skipped at a byte's cost.
func hasInvisible(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 0xd8, 0xe1, 0xe2, 0xef, 0xf3:
			r, _ := utf8.DecodeRuneInString(s[i:])
			if Invisible(r) {
				return true
			}
		}
	}
	return false
}

// isPlain reports whether Text would return s unchanged: valid UTF-8
// whose every character Text keeps (printable ASCII, newlines and tabs
// checked a byte at a time). Titles with a "·" or an accent are the
// common case too: a session list sanitises 10,000 of them.
func isPlain(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !kept(r) { // RuneError too: invalid UTF-8
			return false
		}
		i += size
	}
	return true
}

// Stream sanitizes text that arrives in pieces (a model's streaming
// answer). An escape sequence or a multi-byte character cut between two
// pieces is held back until the rest arrives, so a split sequence can never
// slip through half-stripped.
type Stream struct {
	held string // an unfinished escape sequence or character
}

// Write returns the safe text of piece (plus what was held back before).
func (st *Stream) Write(piece string) string {
	s := st.held + piece
	st.held = ""
	cut := unfinishedTail(s)
	s, st.held = s[:cut], s[cut:]
	return Text(s)
}

// Flush returns what is still held at the end of the stream, sanitized: an
// escape sequence that never finished is dropped with the rest of it.
func (st *Stream) Flush() string {
	s := st.held
	st.held = ""
	return Text(s)
}

// maxHeld bounds how much a stream holds back: a sequence longer than this
// is garbage, and Text drops its control bytes anyway.
const maxHeld = 4096

// unfinishedTail returns where an unfinished escape sequence or UTF-8
// character at the end of s begins (len(s) when there is none).
func unfinishedTail(s string) int {
	start := strings.LastIndexAny(s, "\x1b\u009b\u009d\u0090")
	if start < 0 || len(s)-start > maxHeld {
		return utf8Tail(s)
	}
	if complete(s[start:]) {
		return utf8Tail(s)
	}
	return start
}

// complete reports whether the escape sequence seq (starting with ESC or a
// C1 introducer) has ended.
func complete(seq string) bool {
	switch {
	case strings.HasPrefix(seq, "\x1b["), strings.HasPrefix(seq, "\u009b"):
		body := strings.TrimPrefix(strings.TrimPrefix(seq, "\x1b["), "\u009b")
		for i := 0; i < len(body); i++ {
			if body[i] >= 0x40 && body[i] <= 0x7e {
				return true
			}
		}
		return false
	case strings.HasPrefix(seq, "\x1b]"), strings.HasPrefix(seq, "\x1bP"), strings.HasPrefix(seq, "\x1b_"),
		strings.HasPrefix(seq, "\x1b^"), strings.HasPrefix(seq, "\u009d"), strings.HasPrefix(seq, "\u0090"):
		return strings.ContainsAny(seq, "\x07") || strings.Contains(seq, "\x1b\\") || strings.Contains(seq, "\u009c")
	case seq == "\x1b":
		return false
	}
	return true // a two-character escape
}

// utf8Tail returns where an incomplete UTF-8 character at the end of s begins.
func utf8Tail(s string) int {
	for i := len(s) - 1; i >= 0 && i >= len(s)-3; i-- {
		c := s[i]
		if c < 0x80 {
			return len(s)
		}
		if c >= 0xc0 { // a leading byte: is its character whole?
			need := 2
			switch {
			case c >= 0xf0:
				need = 4
			case c >= 0xe0:
				need = 3
			}
			if len(s)-i < need {
				return i
			}
			return len(s)
		}
	}
	return len(s)
}
