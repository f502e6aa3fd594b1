package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTextStripsWhatDrivesATerminal(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"plain\ttext\n":                   "plain\ttext\n",
		"red \x1b[31mtext\x1b[0m":         "red text",
		"title \x1b]0;pwned\x07 ok":       "title  ok",
		"osc8 \x1b]8;;http://x\x1b\\link": "osc8 link",
		"bell\x07 and del\x7f":            "bell and del",
		"c1 \u009b31m csi":                "c1 31m csi",
		"line\u2028sep":                   "line\nsep",
		"emoji ⚠️ joiner 👩\u200d💻":        "emoji ⚠ joiner 👩💻",
		"cr\rlf":                          "crlf",
		"wide 漢字 stays":                   "wide 漢字 stays",
	}
	for in, want := range cases {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

// A stream cut anywhere gives the same safe text as the whole string.
func TestStreamHoldsSplitSequences(t *testing.T) {
	t.Parallel()
	whole := "a \x1b[31mred\x1b[0m b \x1b]0;title\x07 c 漢字 \x1b]8;;u\x1b\\d"
	want := Text(whole)
	for cut := 0; cut <= len(whole); cut++ {
		var st Stream
		got := st.Write(whole[:cut]) + st.Write(whole[cut:]) + st.Flush()
		if got != want {
			t.Fatalf("cut at %d: %q, want %q", cut, got, want)
		}
	}
}

func FuzzStream(f *testing.F) {
	f.Add("hello \x1b[1mbold\x1b[0m", 3)
	f.Add("\x1b]0;x\x07漢", 5)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		if cut < 0 {
			cut = -cut
		}
		cut %= len(s) + 1
		var st Stream
		got := st.Write(s[:cut]) + st.Write(s[cut:]) + st.Flush()
		if strings.ContainsAny(got, "\x1b\x07\u009b\u009d\u0090") {
			t.Fatalf("control byte survived: %q", got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("valid input became invalid UTF-8: %q", got)
		}
		if Text(got) != got {
			t.Fatalf("output is not stable under Text: %q", got)
		}
	})
}

// Trojan Source: bidi overrides, isolates and marks, and characters that
// hide text, leave both the terminal text and the page text; the emoji
// joiner stays on the page, where emoji sequences render whole.
func TestInvisibleFormatControlsAreStripped(t *testing.T) {
	t.Parallel()
	cases := map[string][2]string{ // input: {Text, Visible}
		"access\u202e\u2066 // check\u2069\u2066 level": {"access // check level", "access // check level"},
		"a\u202ab\u202bc\u202cd\u202de":                 {"abcde", "abcde"},
		"mark\u200e\u200f\u061c":                        {"mark", "mark"},
		"zero\u200bwidth\u2060join\ufeff":               {"zerowidthjoin", "zerowidthjoin"},
		"tag\U000E0041\U000E0042\U000E007F hidden":      {"tag hidden", "tag hidden"},
		"family 👩\u200d👩\u200d👧 stays":                  {"family 👩👩👧 stays", "family 👩\u200d👩\u200d👧 stays"},
		"persian می\u200cخواهم":                         {"persian می\u200cخواهم", "persian می\u200cخواهم"},
		"plain ascii":                                   {"plain ascii", "plain ascii"},
	}
	for in, want := range cases {
		if got := Text(in); got != want[0] {
			t.Errorf("Text(%q) = %q, want %q", in, got, want[0])
		}
		if got := Visible(in); got != want[1] {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want[1])
		}
	}
}

// Every rune Invisible names is caught by hasInvisible's byte screen.
func TestHasInvisibleSeesEveryInvisibleRune(t *testing.T) {
	t.Parallel()
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if Invisible(r) && !hasInvisible("x"+string(r)+"y") {
			t.Fatalf("hasInvisible misses %U", r)
		}
	}
}

func FuzzVisible(f *testing.F) {
	f.Add("if (a\u202e) {\u2066}\u2069")
	f.Add("👩\u200d💻 \U000E0041\u200b")
	f.Add(`{"text":"a\u202eb"}` + "\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		got := Visible(s)
		for _, r := range got {
			if Invisible(r) {
				t.Fatalf("invisible %U survived in %q", r, got)
			}
		}
		for _, r := range Text(s) {
			if Invisible(r) {
				t.Fatalf("invisible %U survived Text in %q", r, Text(s))
			}
		}
		if Visible(got) != got {
			t.Fatalf("not stable: %q", got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("valid input became invalid UTF-8: %q", got)
		}
		if strings.Count(got, "\u200d") != strings.Count(s, "\u200d") {
			t.Fatalf("joiner count changed: %q -> %q", s, got)
		}
	})
}

// FuzzPlainTextIsWhatTheFullPassKeeps: Text's fast path (isPlain, which
// returns the text as it is) never lets through what the full pass would
// change: an escape sequence, a control, an invisible, a joiner or a byte
// that is not UTF-8.
func FuzzPlainTextIsWhatTheFullPassKeeps(f *testing.F) {
	for _, s := range []string{"mention · @chatgpt café — “quoted” …", "a\x1b[31mred", "x\u009b31my", "\u202eevil",
		"tab\tline\n", "\xff\xfe", "\ufffd", "👩\u200d💻", "東京 ok", "\u2028", "a\x7fb", "\x1b]8;;http://x\x07link\x1b]8;;\x07"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if isPlain(s) && strip(s) != s {
			t.Fatalf("isPlain(%q) but the full pass gives %q", s, strip(s))
		}
	})
}

func TestPlainTextTakesTheFastPath(t *testing.T) {
	for _, s := range []string{"mention · @chatgpt café — “quoted” …", "東京 ok", "tab\tline\n"} {
		if !isPlain(s) {
			t.Errorf("isPlain(%q) = false", s)
		}
	}
	for _, s := range []string{"a\x1b[31mred", "x\u009b31my", "\u202eevil", "\xff", "\ufffd", "👩\u200d💻", "\u2028", "a\x7fb", "\x07"} {
		if isPlain(s) {
			t.Errorf("isPlain(%q) = true", s)
		}
	}
}
