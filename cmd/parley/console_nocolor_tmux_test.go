package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// colorSGR matches a colour in a select graphic rendition: a foreground or
// background from the 8, 16, 256 or true colours.
var colorSGR = regexp.MustCompile(`\x1b\[[0-9;:]*\b(3[0-9]|4[0-9]|9[0-7]|10[0-7])\b[0-9;:]*m`)

// TestNoColorInTmux: with NO_COLOR set (no-color.org) the console draws no
// colour at all, in the real binary, while two answers stream and after,
// whatever the theme; without it, the same screen has colours (the check
// can fail).
func TestNoColorInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	for _, c := range []struct {
		noColor bool
		theme   string
	}{{true, "dark"}, {true, "light"}, {false, "dark"}, {false, "light"}} {
		noColor := c.noColor
		t.Run(fmt.Sprintf("NO_COLOR=%v/%s", noColor, c.theme), func(t *testing.T) {
			env := "-u NO_COLOR PARLEY_THEME=" + c.theme
			if noColor {
				env = "NO_COLOR=1 PARLEY_THEME=" + c.theme
			}
			tm := startTmux(t, [2]int{100, 30}, fmt.Sprintf("cd %s && env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY %s TERM=xterm-256color COLORTERM=truecolor %s %s --demo --db %s",
				dir, env, fastDemo, bin, filepath.Join(dir, fmt.Sprintf("nc%v-%s.db", noColor, c.theme))))
			tm.wait("the console", func(s string) bool { return strings.Contains(s, "1 mention") })
			tm.text("@all kafka or nats?")
			tm.keys("Enter")
			tm.wait("two answers", func(s string) bool { return strings.Count(s, "✓ done") == 2 && strings.Contains(s, "\ndone") })
			styled := tm.run("capture-pane", "-p", "-e", "-t", "p")
			if got := colorSGR.FindString(styled); noColor && got != "" {
				t.Errorf("NO_COLOR set, the screen has colour %q:\n%q", got, styled[:min(len(styled), 2000)])
			} else if !noColor && got == "" {
				t.Errorf("without NO_COLOR the screen has no colour at all:\n%q", styled[:min(len(styled), 2000)])
			}
		})
	}
}
