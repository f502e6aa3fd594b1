package main

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// TestFindCopyPaletteInTmux walks find, copy and the command palette in the
// real binary at 60×16, 100×30 and 200×50 and keeps each screen as a
// golden: / on the transcript finds "retry" (highlighted, counted), y
// copies the turn (the tmux paste buffer holds its Markdown), Ctrl+P lists
// the commands and "copy" filters them to the copy keys, Enter runs the
// first (the code block reaches the paste buffer).
func TestFindCopyPaletteInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	answer := "Use a bounded retry.\n\n```go\nfor i := 0; i < 3; i++ {\n\tif err = call(); err == nil {\n\t\tbreak\n\t}\n}\n```\n\nThen log the last retry error."
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: answer, Usage: providers.Usage{InputTokens: 10, OutputTokens: 40}}
	})
	for _, size := range tmuxSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			tm := startTmux(t, size, consoleCmd(dir, bin, "OPENAI_API_KEY=k1 OPENAI_BASE_URL="+srv.URL, "pal"+sizeName(size)+".db"))
			tm.run("set-option", "-s", "set-clipboard", "on")
			tm.wait("the first screen", func(s string) bool { return strings.Contains(s, "Try") })
			tm.text("@chatgpt a retry loop?")
			tm.keys("Enter")
			tm.wait("the answer", func(s string) bool { return strings.Contains(s, "\ndone") && strings.Contains(s, "last retry error") })
			tm.keys("Tab")
			tm.keys("/")
			tm.text("retry")
			tm.keys("Enter") // the first match
			s := tm.wait("the matches counted", func(s string) bool { return strings.Contains(s, "/retry") && strings.Contains(s, "/3 ") })
			tmuxGolden(t, "find-"+sizeName(size), s)
			tm.keys("Escape")
			tm.wait("the search closed", func(s string) bool { return !strings.Contains(s, "/retry") })
			tm.keys("y")
			s = tm.wait("the copy confirmed", func(s string) bool { return strings.Contains(flatten(s), "copied turn 2") })
			if got := tm.waitBuffer(answer); got != answer {
				t.Errorf("y: the paste buffer holds %q, want the turn's Markdown", got)
			}
			tmuxGolden(t, "copy-"+sizeName(size), s)
			tm.keys("C-p")
			tm.wait("the palette", func(s string) bool { return strings.Contains(s, "Commands") && strings.Contains(s, "/help") })
			tm.text("copy its")
			s = tm.wait("the palette filtered", func(s string) bool {
				return strings.Contains(s, "› copy its") && !strings.Contains(s, "/help  every key")
			})
			tmuxGolden(t, "palette-"+sizeName(size), s)
			tm.keys("Enter")
			tm.wait("the code block copied", func(s string) bool { return strings.Contains(flatten(s), "copied the last code block of turn 2") })
			want := "for i := 0; i < 3; i++ {\n\tif err = call(); err == nil {\n\t\tbreak\n\t}\n}"
			if got := tm.waitBuffer(want); got != want {
				t.Errorf("the palette's copy: the paste buffer holds %q, want %q", got, want)
			}
		})
	}
}
