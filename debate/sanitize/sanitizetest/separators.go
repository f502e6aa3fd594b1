// Package sanitizetest holds what the tests of every door share to attack
// the sanitizer: the characters a door strips that could split a secret,
// and the characters no JSON output may carry raw.
package sanitizetest

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Separators are the characters and sequences the sanitizer strips
// (issue 42: each one, put inside a key, hid it from a scrubber that ran
// before stripping, and the door that stripped it printed the key whole).
var Separators = map[string]string{
	"zero width space":       "\u200b",
	"word joiner":            "\u2060",
	"left-to-right mark":     "\u200e",
	"byte order mark":        "\ufeff",
	"right-to-left override": "\u202e",
	"left-to-right isolate":  "\u2066",
	"arabic letter mark":     "\u061c",
	"zero width joiner":      "\u200d",
	"variation selector 16":  "\ufe0f",
	"tag characters":         "\U000E0041\U000E0042\U000E007F",
	"SGR reset":              "\x1b[0m",
	"OSC title":              "\x1b]0;title\x07",
	"OSC 8 link":             "\x1b]8;;http://x\x1b\\",
	"BEL":                    "\a",
	"NUL":                    "\x00",
	"DEL":                    "\x7f",
	"C1 CSI":                 "\u009b",
}

// RawInJSON are characters Go's JSON encoder leaves raw and Parley's
// escapes (issue 42, break 9): a C1 control that terminals read as CSI and
// a bidi override (Trojan Source).
var RawInJSON = []string{"\u009b", "\u202e"}

// SplitKey is the key of issue 42's break 2.
const SplitKey = "zq7Xv9Lm2Pq4Rt8Wy1Bn"

// SeparatorNames are the names of Separators, sorted: "sep N" in a
// question names the Nth.
func SeparatorNames() []string { return slices.Sorted(maps.Keys(Separators)) }

// SplitKeyMessage is the error a proxy echoing the key sends for a
// question ending in "sep N": SplitKey split by the Nth separator.
func SplitKeyMessage(question string) string {
	n, _ := strconv.Atoi(question[strings.LastIndex(question, " ")+1:])
	names := SeparatorNames()
	sep := Separators[names[n%len(names)]]
	return "API key not valid: " + SplitKey[:9] + sep + SplitKey[9:] + ". Please pass a valid API key."
}

// Question is the question SplitKeyError answers with the Nth separator.
func Question(agent string, n int) string { return "@" + agent + " sep " + strconv.Itoa(n) }

// CheckScrubbed fails t when text, what door showed for the key split by
// the separator name, holds SplitKey whole or lacks the scrubbed error.
func CheckScrubbed(t testing.TB, door, name, text string) {
	t.Helper()
	if strings.Contains(text, SplitKey) {
		t.Errorf("%s, key split by %s: the key is whole: %q", door, name, text)
	}
	if !strings.Contains(text, "API key not valid: [redacted]") {
		t.Errorf("%s, key split by %s: no scrubbed error: %q", door, name, text)
	}
}
