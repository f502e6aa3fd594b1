package fieldstream

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// stepString reads one byte of a string, escapes included.
func (d *Decoder) stepString(c byte) {
	if len(d.escape) > 0 {
		d.escape = append(d.escape, c)
		d.stepEscape()
		return
	}
	switch c {
	case '\\':
		d.escape = append(d.escape, c)
	case d.quote:
		d.endString()
	default:
		d.flushSurrogate()
		d.addString([]byte{c})
	}
}

// stepEscape reads an escape once it is whole.
func (d *Decoder) stepEscape() {
	e := d.escape
	if e[1] != 'u' {
		d.flushSurrogate()
		d.addString([]byte(unescapeByte(e[1])))
		d.escape = d.escape[:0]
		return
	}
	if len(e) < 6 {
		if len(e) > 2 && !isHex(e[len(e)-1]) {
			d.flushSurrogate()
			d.addString(e) // not an escape after all: kept as written
			d.escape = d.escape[:0]
		}
		return
	}
	r := rune(hexValue(e[2:6]))
	d.escape = d.escape[:0]
	switch {
	case utf16.IsSurrogate(r) && r < 0xdc00:
		d.flushSurrogate()
		d.surr = r
	case utf16.IsSurrogate(r) && d.surr != 0:
		d.addString([]byte(string(utf16.DecodeRune(d.surr, r))))
		d.surr = 0
	default:
		d.flushSurrogate()
		d.addString([]byte(string(r))) // a lone low surrogate becomes U+FFFD
	}
}

// flushSurrogate writes a high surrogate that no low half followed.
func (d *Decoder) flushSurrogate() {
	if d.surr != 0 {
		d.surr = 0
		d.addString([]byte(string(utf8.RuneError)))
	}
}

func (d *Decoder) endString() {
	d.flushSurrogate()
	if len(d.escape) > 0 {
		d.addString(d.escape)
		d.escape = d.escape[:0]
	}
	if d.isKey {
		d.stack[len(d.stack)-1].key = strings.ToLower(strings.TrimSpace(d.key.String()))
		d.state = stateColon
		return
	}
	if d.str == targetProse {
		d.release(true) // the field's prose is whole: all of it before any later field's value
	}
	d.endScalar()
	d.state = stateAfter
}

// endScalar reports a finished non-prose value.
func (d *Decoder) endScalar() {
	top := &d.stack[len(d.stack)-1]
	switch d.str {
	case targetValue:
		d.complete(top.key, d.value.String())
	case targetItem:
		top.items = append(top.items, d.value.String())
	}
	d.str = targetNone
	d.value.Reset()
}

// wholeRunes is the length of b's prefix that does not end inside a UTF-8
// sequence (invalid bytes count as whole: they will not become valid).
func wholeRunes(b []byte) int {
	for back := 1; back <= utf8.UTFMax && back <= len(b); back++ {
		c := b[len(b)-back]
		if c < utf8.RuneSelf {
			return len(b)
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-back:]) {
				return len(b) - back
			}
			return len(b)
		}
	}
	return len(b)
}

func unescapeByte(c byte) string {
	switch c {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	case 'b':
		return "\b"
	case 'f':
		return "\f"
	}
	return string(c) // \" \\ \/ and anything a model made up
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isLiteralByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '+' || c == '.'
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexValue(b []byte) int {
	n := 0
	for _, c := range b {
		n <<= 4
		switch {
		case c >= '0' && c <= '9':
			n |= int(c - '0')
		case c >= 'a' && c <= 'f':
			n |= int(c - 'a' + 10)
		default:
			n |= int(c - 'A' + 10)
		}
	}
	return n
}
