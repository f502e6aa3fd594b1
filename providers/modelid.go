package providers

import (
	"fmt"
	"strconv"
)

// MaxIDLength is the longest model or provider id a catalogue may hold.
const MaxIDLength = 128

// CheckID refuses a model or provider id from outside (a fetched
// catalogue, a config file) that is not 1 to MaxIDLength characters of
// the safe alphabet: ASCII letters, digits and . - _ : / @. Every real id
// fits ("gpt-6.1-sol", "claude-sonnet-4@20250514",
// "meta-llama/llama-3.1-8b:free"); anything else — an escape sequence, a
// bidi or invisible character, a space — would reach a terminal or a page
// through `parley models`, so it is refused, not cleaned. The error quotes
// the id with Go escapes, so printing it is safe.
func CheckID(id string) error {
	if id == "" {
		return fmt.Errorf("an empty id")
	}
	if len(id) > MaxIDLength {
		return fmt.Errorf("id %s… is %d bytes long (at most %d)", strconv.QuoteToASCII(id[:32]), len(id), MaxIDLength)
	}
	for i := 0; i < len(id); i++ {
		if !idByte(id[i]) {
			return fmt.Errorf("id %s has a character outside letters, digits and . - _ : / @", strconv.QuoteToASCII(id))
		}
	}
	return nil
}

func idByte(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	switch b {
	case '.', '-', '_', ':', '/', '@':
		return true
	}
	return false
}
