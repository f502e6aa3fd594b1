package tui

import (
	"github.com/parleyhq/parley/tui/prefs"

	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/providers/providertest"
)

// No frame of a streamed answer shows an inline mark raw while its span is
// still open (it showed "Here is how I see **"); the words come once the
// span closes, and a mark never closed shows as written when its block
// ends.
func TestStreamingHoldsBackUnclosedMarks(t *testing.T) {
	md := newMarkdown(newTheme(prefs.ThemeDark))
	answer := "Here is how I see **the real cost** of it, with `go test` and _care_; 2 * 3 is a snake_case name.\n\nA **lone mark never closed.\n\nEnd."
	var s streamingText
	for i, chunk := range providertest.SplitWords(answer) {
		s.Append(chunk)
		shown := ansi.Strip(strings.Join(s.Lines(md, 60), "\n"))
		closed := strings.Contains(s.String(), "A **lone mark never closed.\n\n")
		for _, mark := range []string{"**", "`", "_care"} {
			if strings.Contains(shown, mark) && !(mark == "**" && closed) {
				t.Fatalf("after word %d (%q) the frame shows %q raw:\n%s", i, chunk, mark, shown)
			}
		}
		if strings.Contains(s.String(), "**the real") && !strings.Contains(s.String(), "cost**") && strings.Contains(shown, "real") {
			t.Fatalf("after word %d the open span's words show before it closes:\n%s", i, shown)
		}
	}
	shown := ansi.Strip(strings.Join(s.Lines(md, 60), "\n"))
	for _, want := range []string{"Here is how I see the real cost of it", "2 * 3", "snake_case", "A **lone mark never closed.", "End."} {
		if !strings.Contains(strings.Join(strings.Fields(shown), " "), want) {
			t.Errorf("the end of the stream does not show %q:\n%s", want, shown)
		}
	}
}

func TestHeldBack(t *testing.T) {
	for in, want := range map[string]string{
		"Here is how I see **":         "Here is how I see ",
		"Here is how I see **the real": "Here is how I see ",
		"a **b** and **c":              "a **b** and ",
		"a **b**":                      "a **b**",
		"use `go te":                   "use ",
		"use `a*b` and *x":             "use `a*b` and ",
		"use `a*b` and":                "use `a*b` and",
		"2 * 3 is six":                 "2 * 3 is six",
		"a snake_case name":            "a snake_case name",
		"- item one\n- item **two":     "- item one\n- item ",
		"* bullet\n* another":          "* bullet\n* another",
		"an escaped \\* star":          "an escaped \\* star",
		"~~gone~~ and ~~go":            "~~gone~~ and ",
		"```go\nx := a * b\n":          "```go\nx := a * b\n",
		"**bold `code** and":           "",
		"text then _emph":              "text then ",
	} {
		if got := heldBack(in); got != want {
			t.Errorf("heldBack(%q) = %q, want %q", in, got, want)
		}
	}
}

// Whatever the text, what is held back is a cut at its end, and what is
// shown holds back nothing more.
func FuzzHeldBack(f *testing.F) {
	for _, seed := range []string{"Here is how I see **", "a **b** and `c", "x_y_z *a* __b", "\\*a ~~b", "```\n*\n```\n*a"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, block string) {
		shown := heldBack(block)
		if !strings.HasPrefix(block, shown) {
			t.Fatalf("heldBack(%q) = %q, not a prefix", block, shown)
		}
		if again := heldBack(shown); again != shown {
			t.Fatalf("heldBack(%q) = %q, but heldBack of that = %q", block, shown, again)
		}
	})
}
