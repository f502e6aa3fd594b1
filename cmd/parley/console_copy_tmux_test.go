package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// TestCopyReachesTheTmuxBuffer runs the real binary in tmux (set-clipboard
// on, as over SSH): y on the selected turn puts its Markdown in tmux's
// paste buffer through OSC 52, Y its last code block, at three sizes.
func TestCopyReachesTheTmuxBuffer(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	answer := "Use a bounded retry.\n\n```go\nfor i := 0; i < 3; i++ {\n\tif err = call(); err == nil {\n\t\tbreak\n\t}\n}\n```\n\nThen log the last error."
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: answer, Usage: providers.Usage{InputTokens: 10, OutputTokens: 40}}
	})
	for _, size := range [][2]int{{60, 16}, {100, 30}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			tm := startTmux(t, size, fmt.Sprintf("cd %s && env -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY OPENAI_API_KEY=k1 OPENAI_BASE_URL=%s TERM=xterm-256color %s --db %s",
				dir, srv.URL, bin, filepath.Join(dir, fmt.Sprintf("copy%d.db", size[0]))))
			tm.run("set-option", "-s", "set-clipboard", "on")
			tm.wait("the first screen", func(s string) bool { return strings.Contains(s, "Try") })
			tm.text("@chatgpt a retry loop?")
			tm.keys("Enter")
			tm.wait("the answer", func(s string) bool { return strings.Contains(s, "done") && strings.Contains(s, "last error") })
			tm.keys("Tab") // the transcript, its latest turn selected
			tm.keys("y")
			tm.wait("the confirmation", func(s string) bool { return strings.Contains(flatten(s), "copied turn 2") })
			if got := tm.waitBuffer(answer); got != answer {
				t.Errorf("y: the paste buffer holds %q, want the turn's Markdown %q", got, answer)
			}
			tm.keys("Y")
			tm.wait("the confirmation", func(s string) bool { return strings.Contains(flatten(s), "copied the last code block of turn 2") })
			want := "for i := 0; i < 3; i++ {\n\tif err = call(); err == nil {\n\t\tbreak\n\t}\n}"
			if got := tm.waitBuffer(want); got != want {
				t.Errorf("Y: the paste buffer holds %q, want %q", got, want)
			}
		})
	}
}

// waitBuffer reads tmux's paste buffer until it holds want, for at most
// tmuxWait, and returns what it last held. The console shows "copied" in
// the frame its update makes, while the OSC 52 sequence that fills the
// buffer is a command the runtime writes on its own: the two reach tmux
// in either order, so the buffer is read until it holds the copy.
func (tm *tmuxPane) waitBuffer(want string) string {
	tm.t.Helper()
	deadline := time.Now().Add(tmuxWait)
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	for {
		out, err := exec.Command("tmux", "-L", tm.socket, "show-buffer").Output() // no buffer yet: an error
		if err == nil && string(out) == want || time.Now().After(deadline) {
			return string(out)
		}
		<-poll.C
	}
}
