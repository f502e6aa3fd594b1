package fieldstream

import (
	"strings"
)

// Fields of a structured answer as the decoder reports them.
const (
	// Raw marks text of an answer that did not read as a JSON object:
	// the answer's own text, shown as it came (not parsed).
	Raw = "raw"
)

// proseField reports whether a structured answer's field is one a person
// reads as it arrives (MAGI reasoning and summary, a council ranking's
// evaluation). Every other field (vote, answer, confidence, ranking) is
// reported once, when its value is complete.
func proseField(key string) bool {
	switch key {
	case "reasoning", "summary", "evaluation":
		return true
	}
	return false
}

// Bounds on what the decoder keeps while it reads one answer.
const (
	maxFieldValueBytes = 4 << 10 // a non-prose value is reported up to here
	maxFieldDepth      = 32      // deeper nesting is not a structured answer
	maxPreambleBytes   = 512     // text before the object: fence or chatter
)

// Piece is what a Decoder read: prose of a field as it arrives
// (Text), or a non-prose field's complete value (Complete, Value).
type Piece struct {
	Field    string
	Text     string
	Complete bool
	Value    string
}

// Decoder reads a streamed JSON answer (a MAGI vote, a council
// ranking) incrementally and yields the values of its prose fields,
// unescaped, as they arrive, and every other field's value when it is
// complete. It is as tolerant as the parsers that read the finished
// answer: text or a code fence before the object, single quotes, trailing
// commas. An answer that does not read as an object falls back to its own
// text (Field Raw). Chunks may split anything, UTF-8 runes and
// escapes included; Text never ends inside a rune.
type Decoder struct {
	state    decodeState
	stack    []frame
	quote    byte
	isKey    bool
	key      strings.Builder // the key being read
	str      stringTarget    // where the string value being read goes
	value    strings.Builder // a non-prose scalar being read
	escape   []byte          // an escape being read: '\\' and what follows
	surr     rune            // a high surrogate waiting for its low half
	preamble strings.Builder
	held     []byte // prose bytes that do not end a rune yet
	field    string // the field of the held bytes
	wrote    bool   // prose has been yielded: the next field is set off
	sep      bool   // the field's first text is to be set off by a blank line
	out      []Piece
}

type decodeState uint8

const (
	statePreamble decodeState = iota
	stateKey                  // a key or the end of an object
	stateColon
	stateValue // a value (or the end of an array)
	stateAfter // ',' or the end of the container
	stateString
	stateLiteral
	stateEnd // the object is closed: the rest (a closing fence) is not read
	stateRaw // not an object: the text passes through
)

// frame is an open object or array.
type frame struct {
	array bool
	key   string   // objects: the key whose value is being read
	field string   // arrays: the non-prose field whose items are collected
	items []string // arrays: the string items read so far
}

type stringTarget uint8

const (
	targetNone stringTarget = iota
	targetProse
	targetValue
	targetItem
)

// NewDecoder returns a decoder at the start of an answer.
func NewDecoder() *Decoder { return &Decoder{} }

// Write reads the next chunk of the answer and returns what it yielded.
func (d *Decoder) Write(chunk string) []Piece {
	d.out = d.out[:0]
	for i := 0; i < len(chunk); i++ {
		if d.state == stateRaw {
			d.prose(Raw, chunk[i:])
			break
		}
		if !d.step(chunk[i]) {
			d.fallback(chunk[i:])
			break
		}
	}
	d.release(false)
	return d.out
}

// Flush ends the answer: text still held (a preamble without an object)
// comes out as raw text.
func (d *Decoder) Flush() []Piece {
	d.out = d.out[:0]
	if d.state == statePreamble && d.preamble.Len() > 0 {
		d.fallback("")
	}
	d.release(true)
	return d.out
}

// Parsed reports whether the answer so far reads as a JSON object.
func (d *Decoder) Parsed() bool { return d.state != stateRaw && d.state != statePreamble }

// fallback gives up on the object: what was held back and the rest of the
// chunk are yielded as raw text.
func (d *Decoder) fallback(rest string) {
	pre := d.preamble.String()
	d.preamble.Reset()
	d.state = stateRaw
	d.prose(Raw, pre+rest)
}

// step reads one byte; false is a syntax error.
func (d *Decoder) step(c byte) bool {
	switch d.state {
	case statePreamble:
		return d.stepPreamble(c)
	case stateString:
		d.stepString(c)
		return true
	case stateLiteral:
		if isLiteralByte(c) {
			d.addValue(string(c))
			return true
		}
		d.endScalar()
		d.state = stateAfter
		return d.step(c)
	case stateEnd:
		return true
	}
	if isSpace(c) {
		return true
	}
	switch d.state {
	case stateKey:
		return d.stepKey(c)
	case stateColon:
		if c != ':' {
			return false
		}
		d.state = stateValue
		return true
	case stateValue:
		return d.stepValue(c)
	case stateAfter:
		return d.stepAfter(c)
	}
	return false
}

func (d *Decoder) stepPreamble(c byte) bool {
	if c == '{' {
		d.preamble.Reset()
		return d.open(false)
	}
	d.preamble.WriteByte(c)
	if d.preamble.Len() > maxPreambleBytes {
		d.fallback("")
	}
	return true
}

func (d *Decoder) stepKey(c byte) bool {
	switch c {
	case '"', '\'':
		d.quote, d.isKey, d.state = c, true, stateString
		d.key.Reset()
		return true
	case '}':
		return d.close(false)
	}
	return false
}

func (d *Decoder) stepValue(c byte) bool {
	top := &d.stack[len(d.stack)-1]
	switch {
	case c == '{' || c == '[':
		return d.open(c == '[')
	case c == ']' && top.array:
		return d.close(true) // an empty array, or a trailing comma
	case c == '"' || c == '\'':
		d.quote, d.isKey, d.state = c, false, stateString
		d.str = d.target()
		if d.str == targetProse {
			d.startProse(top.key)
		}
		return true
	case isLiteralByte(c):
		d.state = stateLiteral
		d.str = d.target()
		d.addValue(string(c))
		return true
	}
	return false
}

func (d *Decoder) stepAfter(c byte) bool {
	top := &d.stack[len(d.stack)-1]
	switch {
	case c == ',' && top.array:
		d.state = stateValue
	case c == ',':
		d.state = stateKey
	case c == '}' || c == ']':
		return d.close(c == ']')
	default:
		return false
	}
	return true
}

// target is where the value about to be read goes.
func (d *Decoder) target() stringTarget {
	top := d.stack[len(d.stack)-1]
	switch {
	case top.array && top.field != "":
		return targetItem
	case top.array:
		return targetNone
	case proseField(top.key):
		return targetProse
	case top.key != "":
		return targetValue
	}
	return targetNone
}

func (d *Decoder) open(array bool) bool {
	if len(d.stack) >= maxFieldDepth {
		return false
	}
	f := frame{array: array}
	if array && len(d.stack) > 0 {
		if top := d.stack[len(d.stack)-1]; !top.array && !proseField(top.key) {
			f.field = top.key
		}
	}
	d.stack = append(d.stack, f)
	d.value.Reset()
	if array {
		d.state = stateValue
	} else {
		d.state = stateKey
	}
	return true
}

func (d *Decoder) close(array bool) bool {
	top := d.stack[len(d.stack)-1]
	if top.array != array {
		return false
	}
	d.stack = d.stack[:len(d.stack)-1]
	if top.field != "" {
		d.complete(top.field, strings.Join(top.items, ", "))
	}
	if len(d.stack) == 0 {
		d.state = stateEnd
		return true
	}
	d.state = stateAfter
	return true
}

// complete reports a non-prose field's value. An empty one ("changed_by":
// "", an empty list) is not reported: there is nothing for a door to show.
func (d *Decoder) complete(field, value string) {
	if strings.TrimSpace(value) == "" {
		return
	}
	d.out = append(d.out, Piece{Field: field, Complete: true, Value: value})
}

func (d *Decoder) addString(b []byte) {
	switch {
	case d.isKey:
		if d.key.Len() < maxFieldValueBytes {
			d.key.Write(b)
		}
	case d.str == targetProse:
		d.hold(b)
	default:
		d.addValue(string(b))
	}
}

func (d *Decoder) addValue(s string) {
	if d.value.Len() < maxFieldValueBytes {
		d.value.WriteString(s)
	}
}

// startProse begins a prose field: its first text is set off from earlier
// prose by a blank line, so readers that join the text get paragraphs, never
// glued words (an empty field adds no blank line).
func (d *Decoder) startProse(field string) {
	d.release(false)
	d.field = field
	d.sep = d.wrote
}

// hold keeps prose bytes until they end a rune, after the field's separator.
func (d *Decoder) hold(b []byte) {
	if d.sep {
		d.held = append(d.held, "\n\n"...)
		d.sep = false
	}
	d.held = append(d.held, b...)
}

// prose yields raw text (the fallback) through the same rune holding.
func (d *Decoder) prose(field, text string) {
	if text == "" {
		return
	}
	if d.field != field {
		d.startProse(field)
	}
	d.hold([]byte(text))
}

// release yields the held prose up to its last whole rune (all of it at the end).
func (d *Decoder) release(end bool) {
	n := len(d.held)
	if !end {
		n = wholeRunes(d.held)
	}
	if n == 0 {
		return
	}
	text := string(d.held[:n])
	d.held = append(d.held[:0], d.held[n:]...)
	if k := len(d.out); k > 0 && !d.out[k-1].Complete && d.out[k-1].Field == d.field {
		d.out[k-1].Text += text
	} else {
		d.out = append(d.out, Piece{Field: d.field, Text: text})
	}
	d.wrote = true
}
