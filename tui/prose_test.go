package tui

import (
	"github.com/parleyhq/parley/tui/prefs"

	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// glamourRows is what glamour draws for text, tight: the reference the
// plain path must match.
func glamourRows(md *markdown, text string, width int) []string {
	return md.renderGlamour(text, width)
}

// A paragraph of plain words drawn without glamour is what glamour draws,
// byte for byte, at every width.
func TestPlainProseEqualsGlamour(t *testing.T) {
	md := newMarkdown(newTheme(prefs.ThemeDark))
	texts := []string{
		"The retry loop needs a bound on attempts and on the total wait, or a slow dependency becomes an outage.",
		"Keep the state explicit and the errors typed, so the caller can tell a timeout from a refusal and decide whether to try again; it is 100% worth it.",
		"Measure first, then cap the wait at the deadline (say 5 tries) and give up cleanly; a retry that ignores the deadline is a bug.",
		"Supercalifragilisticexpialidociousandthensomemorelettersthatdonotfit in one row, then words.",
		"It's \"quoted\" -- and $5 or 50% (maybe) - a well-known, semi;colon.separated+plus|pipe word.",
	}
	for _, text := range texts { // the range is read once: the copies are not copied again
		texts = append(texts, text+" ") // as a streamed chunk ends
	}
	n, fell := 0, 0
	for _, text := range texts {
		for width := 8; width <= 120; width++ {
			got, ok := md.plainProse(text, width)
			if !ok {
				fell++ // not plain prose, or a row fills the width
				continue
			}
			n++
			if d := firstDiff(got, glamourRows(md, text, width)); d != "" {
				t.Fatalf("%q at width %d: %s", text, width, d)
			}
		}
	}
	if n < 200 {
		t.Fatalf("%d renders compared, %d left to glamour", n, fell)
	}
}

// Whatever the text, when it is plain prose, drawing it without glamour
// gives glamour's rows.
func FuzzPlainProseEqualsGlamour(f *testing.F) {
	f.Add("The retry loop needs a bound on attempts and on the total wait.", 40)
	f.Add("Supercalifragilisticexpialidocious word a b c d e f g h i j k l.", 9)
	f.Add("word1 and word2 and word3 and ", 21)
	f.Add("It's \"quoted\" -- and $5 or 50% (maybe) - a well-known, semi;colon.", 17)
	md := newMarkdown(newTheme(prefs.ThemeDark))
	f.Fuzz(func(t *testing.T, text string, width int) {
		width = 8 + abs(width)%113
		got, ok := md.plainProse(text, width)
		if !ok {
			return
		}
		if d := firstDiff(got, glamourRows(md, text, width)); d != "" {
			t.Fatalf("%q at width %d: %s", text, width, d)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// cells reads a styled row as its visible characters, each with the
// styles set on it since the last reset: two rows with the same cells
// look the same on any terminal.
func cells(row string) []string {
	var out []string
	var style []string
	for i := 0; i < len(row); {
		if seq, ok := sgrAt(row, i); ok {
			if isReset(seq) {
				style = nil
			} else {
				style = append(style, seq)
			}
			i += len(seq)
			continue
		}
		out = append(out, fmt.Sprintf("%c%q", row[i], style))
		i++
	}
	return out
}

func TestTightSGRKeepsCells(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\x1b[38;5;252mbecomes an\x1b[m\x1b[38;5;252m outage.\x1b[m", "\x1b[38;5;252mbecomes an outage.\x1b[m"},
		{"\x1b[38;5;251m\x1b[m\x1b[38;5;252m \x1b[m\x1b[38;5;252m \x1b[m\x1b[38;5;39mfor\x1b[0m", "\x1b[38;5;252m  \x1b[m\x1b[38;5;39mfor\x1b[0m"},
		{"\x1b[1mbold\x1b[38;5;252mboth\x1b[m\x1b[1m then\x1b[m", "\x1b[1mbold\x1b[38;5;252mboth\x1b[m\x1b[1m then\x1b[m"},
		{"\x1b[38;5;252ma \x1b[m \x1b[38;5;252mb\x1b[m", "\x1b[38;5;252ma \x1b[m \x1b[38;5;252mb\x1b[m"},
		{"plain \x1b[m text", "plain  text"},
	} {
		got := tightSGR(c.in)
		if got != c.want {
			t.Errorf("tightSGR(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if a, b := strings.Join(cells(c.in), ""), strings.Join(cells(got), ""); a != b {
			t.Errorf("tightSGR(%q) changed the cells:\n%s\n%s", c.in, a, b)
		}
	}
}

// Whatever glamour draws, the tight rows have its cells.
func FuzzTightSGRKeepsCells(f *testing.F) {
	for _, s := range streamCorpus() {
		f.Add(s)
	}
	md := newMarkdown(newTheme(prefs.ThemeDark))
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 200 || !utf8.ValidString(text) {
			return // the console sanitizes what it draws: valid UTF-8
		}
		r, err := md.renderer(40)
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Render(plainFences(text))
		if err != nil {
			return
		}
		for _, row := range splitLines(out) {
			if a, b := strings.Join(cells(row), ""), strings.Join(cells(tightSGR(row)), ""); a != b {
				t.Fatalf("%q: tight %q has other cells", row, tightSGR(row))
			}
		}
	})
}

// A bullet item of plain words that fits one row, drawn without glamour,
// is glamour's row, at every width (the open list's last item is drawn so
// on every frame while it streams, until it wraps).
func TestPlainItemEqualsGlamour(t *testing.T) {
	md := newMarkdown(newTheme(prefs.ThemeDark))
	texts := []string{
		"- word21 and word22 and word23 and word24 and word25 and word26 and word27 and word28 and word29 and word30 and ",
		"- The retry loop needs a bound on attempts and on the total wait, or a slow dependency becomes an outage.",
		"- Supercalifragilisticexpialidociousandthensomemorelettersthatdonotfit in one row, then words.",
		"- word21 and ",
		"- a short item",
		"- It's \"quoted\" -- and $5 or 50% (maybe) - a well-known, semi;colon.",
	}
	n := 0
	for _, text := range texts {
		for width := 8; width <= 120; width++ {
			got, ok := md.plainItem(text, width)
			if !ok {
				continue
			}
			n++
			if d := firstDiff(got, glamourRows(md, text, width)); d != "" {
				t.Fatalf("%q at width %d: %s", text, width, d)
			}
		}
	}
	if n < 150 {
		t.Fatalf("%d renders compared", n)
	}
}

func FuzzPlainItemEqualsGlamour(f *testing.F) {
	f.Add("word1 and word2 and word3 and ", 21)
	f.Add("It's \"quoted\" -- and $5 or 50% (maybe) - a well-known, semi;colon.", 17)
	md := newMarkdown(newTheme(prefs.ThemeDark))
	f.Fuzz(func(t *testing.T, words string, width int) {
		width = 8 + abs(width)%113
		text := "- " + words
		got, ok := md.plainItem(text, width)
		if !ok {
			return
		}
		if d := firstDiff(got, glamourRows(md, text, width)); d != "" {
			t.Fatalf("%q at width %d: %s", text, width, d)
		}
	})
}
