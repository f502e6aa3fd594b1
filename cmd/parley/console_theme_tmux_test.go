package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestThemeFollowsTheTerminalInTmux: with theme auto the real binary asks
// the terminal for its background (tmux answers with the window's) and
// draws the light theme on a white one, the dark on a black one: the muted
// grey of each theme is on screen and the other's is not.
func TestThemeFollowsTheTerminalInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	const darkMuted, lightMuted = "38;2;138;138;138m", "38;2;95;95;95m"
	for _, c := range []struct{ bg, want, not string }{{"white", lightMuted, darkMuted}, {"black", darkMuted, lightMuted}} {
		t.Run(c.bg, func(t *testing.T) {
			tm := startTmux(t, [2]int{100, 30}, "sleep 60")
			tm.run("set-option", "-g", "window-style", "bg="+c.bg)
			tm.run("respawn-pane", "-k", "-t", "p", fmt.Sprintf("cd %s && env -u NO_COLOR -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY PARLEY_THEME=auto TERM=xterm-256color COLORTERM=truecolor %s --demo --db %s",
				dir, bin, filepath.Join(dir, "theme-"+c.bg+".db")))
			tm.wait("the console", func(s string) bool { return strings.Contains(s, "1 mention") })
			styled := tm.run("capture-pane", "-p", "-e", "-t", "p")
			if !strings.Contains(styled, c.want) || strings.Contains(styled, c.not) {
				t.Errorf("on %s: want %q and not %q:\n%q", c.bg, c.want, c.not, styled[:min(len(styled), 1500)])
			}
		})
	}
}
