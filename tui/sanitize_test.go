package tui

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitizeStripsEscapesAndControls(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"plain text\nline two":        "plain text\nline two",
		"\x1b[31mred\x1b[0m":          "red",
		"title\x1b]0;pwned\x07 after": "title after",
		"bell\a back\bspace\rcr":      "bell backspacecr",
		"tab\there":                   "tab    here",
		"c1 \u009b31m csi":            "c1 31m csi",
		"\x1b[2J\x1b[Hclear":          "clear",
		"unicode ✓ 日本語 stays":         "unicode ✓ 日本語 stays",
		"del\x7f":                     "del",
		"warn ⚠️ fam 👨‍👩‍👧 ok 👍🏽":                       "warn ⚠ fam 👨👩👧 ok 👍",
		"osc8 \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\": "osc8 link",
	}
	for in, want := range cases {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"hello", "\x1b[31mred", "\x1b]0;t\x07", "a\tb\r\n", "\u009b2J", "日本\x00語", "\x1b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		for _, r := range out {
			if r == 0x1b || (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("Sanitize(%q) left control %U in %q", s, r, out)
			}
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("Sanitize(%q) produced invalid UTF-8 %q", s, out)
		}
		if Sanitize(out) != out && !strings.Contains(out, "\ufffd") {
			t.Fatalf("Sanitize is not idempotent on %q: %q then %q", s, out, Sanitize(out))
		}
	})
}
