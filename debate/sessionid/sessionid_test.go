package sessionid_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	. "github.com/parleyhq/parley/debate/sessionid"
)

func TestCheckSessionID(t *testing.T) {
	for _, id := range []string{debate.NewSessionID(), "a", "seed-001", "Ab_9-z", strings.Repeat("f", 64)} {
		if err := Check(id); err != nil {
			t.Errorf("%q refused: %v", id, err)
		}
	}
	for id, char := range map[string]string{
		"y/../../../victim":     `'/' at position 2`,
		"..":                    `'.' at position 1`,
		`a\b`:                   `'\\' at position 2`,
		"a b":                   `' ' at position 2`,
		"a\x00b":                `'\x00' at position 2`,
		"a\nb":                  `'\n' at position 2`,
		"a\x1b[31m":             `'\x1b' at position 2`,
		"caf\u00e9":             `'é' at position 4`,
		"a%b":                   `'%' at position 2`,
		"":                      "is empty",
		strings.Repeat("f", 65): "65 characters long",
	} {
		err := Check(id)
		var bad *Error
		if !errors.As(err, &bad) {
			t.Errorf("%q accepted", id)
			continue
		}
		if !strings.Contains(err.Error(), char) || !strings.Contains(err.Error(), "letters") {
			t.Errorf("%q: %v, want it to name %s", id, err, char)
		}
	}
}

// FuzzCheckSessionID: whatever is accepted is safe as a file name part and
// in the alphabet; whatever is refused says why without crashing.
func FuzzCheckSessionID(f *testing.F) {
	for _, s := range []string{"3fa2c4d5e6f7", "y/../../../victim", "..", "a\x00", "seed-001", "\xff\xfe", strings.Repeat("a", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		err := Check(id)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty message")
			}
			return
		}
		if id == "" || len(id) > MaxLen || strings.ContainsAny(id, "/\\.\x00 %") || strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
			t.Fatalf("%q accepted", id)
		}
	})
}
