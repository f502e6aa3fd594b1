package sanitize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// EscapeJSON rewrites, in JSON text, every character a terminal or a reader
// could be fooled by as a \u escape: C0 and C1 controls and DEL, bidi
// controls (U+202E…), tag characters and the other invisible format
// controls. Go's encoder leaves C1, bidi and tag characters raw. They can
// only sit inside strings in valid JSON, so the text decodes to exactly
// what it did.
func EscapeJSON(data []byte) []byte {
	if !needsEscape(data) {
		return data
	}
	var b bytes.Buffer
	b.Grow(len(data) + 16)
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if escapeRune(r) && size > 1 || r == 0x7f {
			writeEscape(&b, r)
		} else {
			b.Write(data[:size])
		}
		data = data[size:]
	}
	return b.Bytes()
}

func needsEscape(data []byte) bool {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == 0x7f || size > 1 && escapeRune(r) {
			return true
		}
		i += size
	}
	return false
}

// escapeRune: the runes EscapeJSON writes as escapes (C0 controls are
// already escaped by every JSON encoder, and are bytes, not runes > 1 byte).
func escapeRune(r rune) bool {
	return r >= 0x80 && r < 0xa0 || Invisible(r) // bidi, tags, hidden format controls
}

// writeEscape writes r as \uXXXX, or a surrogate pair past the BMP.
func writeEscape(b *bytes.Buffer, r rune) {
	if r < 0x10000 {
		fmt.Fprintf(b, `\u%04x`, r)
		return
	}
	r -= 0x10000
	fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
}

// NewJSONEncoder is the one JSON encoder of every door that writes JSON
// holding text from outside (--json, --jsonl, exports, `models --json`,
// the API, SSE data, MCP): encoding/json's encoder over JSONWriter, so C1
// controls, bidi and invisible characters leave only as \u escapes. HTML
// characters stay as they are (JSON strings cannot run as HTML, and code
// is full of < and &).
func NewJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(JSONWriter(w))
	enc.SetEscapeHTML(false)
	return enc
}

// MarshalJSON is json.Marshal, escaped as EscapeJSON does, HTML characters
// kept (see NewJSONEncoder).
func MarshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := NewJSONEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// JSONWriter escapes, as EscapeJSON does, the JSON text written to w. Each
// write is whole JSON (a line, a document); a rune cut at the end of a
// write is held for the next.
func JSONWriter(w io.Writer) io.Writer { return &jsonOut{w: w} }

type jsonOut struct {
	w    io.Writer
	held []byte
}

func (j *jsonOut) Write(p []byte) (int, error) {
	data := append(j.held, p...)
	cut := len(data)
	for back := 1; back <= utf8.UTFMax && back <= len(data); back++ {
		if utf8.RuneStart(data[len(data)-back]) {
			if !utf8.FullRune(data[len(data)-back:]) {
				cut = len(data) - back
			}
			break
		}
	}
	j.held = append([]byte(nil), data[cut:]...)
	if _, err := j.w.Write(EscapeJSON(data[:cut])); err != nil {
		return 0, err
	}
	return len(p), nil
}
