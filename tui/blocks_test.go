package tui

import (
	"github.com/parleyhq/parley/tui/prefs"

	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// words is the words of rendered lines (or of the Markdown they come
// from), in order, without list bullets and inline marks.
func words(lines []string) []string {
	var out []string
	for _, w := range strings.Fields(strings.NewReplacer("*", "", "`", "").Replace(ansi.Strip(strings.Join(lines, "\n")))) {
		if w != "-" && w != "•" {
			out = append(out, w)
		}
	}
	return out
}

// A block that never ends (a model looping over one list, or one line that
// never ends) is cut into pieces as it streams: a frame renders only the
// pieces it shows, the styled lines kept stay few, and no word is lost or
// joined to another.
func TestRunawayBlockStreamsInPieces(t *testing.T) {
	t.Parallel()
	md := newMarkdown(newTheme(prefs.ThemeDark))
	for _, shape := range runawayShapes {
		t.Run(shape.name, func(t *testing.T) {
			// 100 KB is 25 open pieces, more than the 2 × keepAbove whose
			// styled lines may be kept.
			text := strings.Repeat(shape.unit, (100<<10)/len(shape.unit))
			var s streamingText
			for at := 0; at < len(text); at += 4 << 10 {
				s.Append(text[at:min(at+4<<10, len(text))])
				if got := s.Tail(md, 60, 20); len(got) < 20 {
					t.Fatalf("after %d bytes the tail has %d lines, want 20", at, len(got))
				}
				kept := 0
				for _, l := range s.blocks.lines {
					if l != nil {
						kept++
					}
				}
				if kept > 2*keepAbove {
					t.Fatalf("after %d bytes %d blocks of %d keep their styled lines", at, kept, len(s.blocks.blocks))
				}
			}
			for k, b := range s.blocks.blocks {
				if n := b.end - b.start; n > maxOpenBlock {
					t.Fatalf("block %d is %d bytes, over %d", k, n, maxOpenBlock)
				}
			}
			if got, want := words(s.Lines(md, 60)), words([]string{text}); strings.Join(got, "") != strings.Join(want, "") {
				t.Errorf("the words shown differ from the answer's (%d shown, %d sent)", len(got), len(want))
			}
		})
	}
}

// A finished runaway answer is cut the same way: its last lines render one
// piece or two, whatever its length, and every word is there.
func TestFinishedRunawayRendersItsEnd(t *testing.T) {
	t.Parallel()
	md := newMarkdown(newTheme(prefs.ThemeDark))
	// Half a megabyte is hundreds of pieces, enough to tell rendering the
	// end from rendering them all; rendering all of it (below) is the
	// test's cost, and 1 MB took ~4 s of CPU.
	text := strings.Repeat(runawayShapes[1].unit, (512<<10)/len(runawayShapes[1].unit))
	f := newFinishedText(text)
	if len(f.blocks) < (512<<10)/maxFinishedBlock {
		t.Fatalf("512 KB without a blank line is %d blocks", len(f.blocks))
	}
	if lines, all := f.Tail(md, 80, 30); len(lines) < 30 || all || f.from < len(f.blocks)-4 {
		t.Fatalf("30 lines rendered blocks %d… of %d", f.from, len(f.blocks))
	}
	if got, want := words(f.All(md, 80)), words([]string{text}); strings.Join(got, "") != strings.Join(want, "") {
		t.Errorf("the words shown differ from the answer's (%d shown, %d sent)", len(got), len(want))
	}
}

// A code block that runs on is cut into plain pieces, and what follows it
// once it closes is Markdown again.
func TestRunawayCodeBlockStaysCode(t *testing.T) {
	t.Parallel()
	md := newMarkdown(newTheme(prefs.ThemeDark))
	code := "```go\n" + strings.Repeat("x := f(**y**) // loop\n\n", 600) + "```\n\nAfter the **code**.\n\n"
	var s streamingText
	s.Append(code)
	lines := s.Lines(md, 60)
	shown := ansi.Strip(strings.Join(lines, "\n"))
	if strings.Count(shown, "**y**") != 600 {
		t.Errorf("the code's marks were read as Markdown: %d of 600 shown as written", strings.Count(shown, "**y**"))
	}
	if strings.Contains(shown, "**code**") || !strings.Contains(shown, "After the code.") {
		t.Errorf("the paragraph after the code is not Markdown:\n%s", shown[max(len(shown)-200, 0):])
	}
}
