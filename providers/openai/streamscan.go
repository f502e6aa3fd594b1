package openai

import (
	"encoding/json"
	"unicode/utf8"
)

// eventScan walks one JSON object. Each method skips the white space
// before what it reads and reports false, having read nothing useful, when
// the input is not what it expects.
type eventScan struct {
	b []byte
	i int
}

func (s *eventScan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next consumes c.
func (s *eventScan) next(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// quoted finds the string token at the cursor and consumes it: its
// contents, whether they hold an escape, and false if it is not a whole
// JSON string (a raw control character, or no closing quote).
func (s *eventScan) quoted() (body []byte, escaped, ok bool) {
	if !s.next('"') {
		return nil, false, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if !stringStop[c] { // nearly every byte: one load and one branch
			s.i++
			continue
		}
		switch c {
		case '"':
			s.i++
			return s.b[start : s.i-1], escaped, true
		case '\\':
			escaped = true
			s.i += 2 // the escaped byte cannot end the string
		default: // a raw control character
			return nil, false, false
		}
	}
	return nil, false, false
}

// stringStop marks the bytes that end a run of plain string contents: the
// quote, the backslash and the control characters JSON forbids raw.
var stringStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// plainString reads a string with no escape in it.
func (s *eventScan) plainString() ([]byte, bool) {
	body, escaped, ok := s.quoted()
	return body, ok && !escaped
}

// stringValue reads a string value as encoding/json would: escapes
// resolved and invalid UTF-8 replaced, both by encoding/json itself.
func (s *eventScan) stringValue() (string, bool) {
	start := s.i
	body, escaped, ok := s.quoted()
	if !ok {
		return "", false
	}
	if !escaped && utf8.Valid(body) {
		return string(body), true
	}
	var v string
	if json.Unmarshal(s.b[start:s.i], &v) != nil {
		return "", false
	}
	return v, true
}

// smallInt reads an integer of at most 18 digits, which any int holds, in
// JSON's grammar (no leading zero, no fraction, no exponent).
func (s *eventScan) smallInt() bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > 18 || (digits > 1 && s.b[start] == '0') {
		return false
	}
	if s.i < len(s.b) {
		switch s.b[s.i] { // what may follow a number in an object
		case ',', '}', ' ', '\t', '\n', '\r':
		default:
			return false
		}
	}
	return true
}

// emptyList reads [] or null.
func (s *eventScan) emptyList() bool {
	if s.next('[') {
		return s.next(']')
	}
	return s.null()
}

// null reads null.
func (s *eventScan) null() bool {
	s.space()
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// object reads an object whose keys hold no escape, calling field for
// each with the cursor on its value: field reads the value and reports
// whether it is one it knows.
func (s *eventScan) object(field func(key []byte) bool) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	for {
		key, ok := s.plainString()
		if !ok || !s.next(':') || !field(key) {
			return false
		}
		if s.next(',') {
			continue
		}
		return s.next('}')
	}
}

// end reports whether only white space is left.
func (s *eventScan) end() bool {
	s.space()
	return s.i == len(s.b)
}
