// Package sessionid says which session IDs Parley accepts: the IDs it
// generates and the safe set around them, which no path built from an ID
// can escape. Every door checks an ID it is given with Check.
package sessionid

import (
	"fmt"
	"unicode/utf8"
)

// MaxLen is the longest session ID Parley accepts.
const MaxLen = 64

// Error refuses a session ID outside the safe set, naming the
// first character that is not allowed (and where it is).
type Error struct {
	ID     string
	Char   rune
	Pos    int // 1-based, in characters; 0 when the length is the problem
	Reason string
}

func (e *Error) Error() string {
	const set = "session IDs are 1 to 64 letters (a-z, A-Z), digits, '-' and '_'"
	if e.Pos > 0 {
		return fmt.Sprintf("session ID %s has %q at position %d: %s", quoteID(e.ID), e.Char, e.Pos, set)
	}
	return fmt.Sprintf("session ID %s is %s: %s", quoteID(e.ID), e.Reason, set)
}

// quoteID shows at most the ID's first 80 bytes, escaped.
func quoteID(id string) string {
	if len(id) > 80 {
		cut := 80
		for cut > 0 && !utf8.RuneStart(id[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", id[:cut])
	}
	return fmt.Sprintf("%q", id)
}

// Check accepts the IDs Parley generates (12 hex digits) and the
// documented safe set around them: ASCII letters, digits, '-' and '_', 1
// to 64 of them, not starting with '-'. Every door checks an ID it is given (import, the API, MCP,
// the --session and --resume flags) with it, and nothing builds a path from
// an ID it has not accepted: no '/', '\', '.', NUL or control character
// can reach a file name.
func Check(id string) error {
	if id == "" {
		return &Error{ID: id, Reason: "empty"}
	}
	if id[0] == '-' {
		// An ID like "--help" would read as a flag in every hint that
		// names it (parley --resume ID): refused at every door.
		return &Error{ID: id, Reason: "starting with '-'"}
	}
	pos := 0
	for _, r := range id {
		pos++
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'
		if !ok {
			return &Error{ID: id, Char: r, Pos: pos}
		}
	}
	if len(id) > MaxLen {
		return &Error{ID: id, Reason: fmt.Sprintf("%d characters long", len(id))}
	}
	return nil
}
