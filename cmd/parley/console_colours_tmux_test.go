package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A bad colour of theme: {colors: …} stops the real binary with the file
// and line of the entry: an unknown role naming the roles, a colour that
// is none, one too dim for text with its ratio (parley doctor and the
// console alike, both loading the configuration first).
func TestThemeColourErrorsThroughTheBinary(t *testing.T) {
	t.Parallel()
	bin := buildParley(t)
	dir := t.TempDir()
	for i, c := range []struct {
		body, want string
		args       []string
	}{
		{"theme:\n  base: dark\n  colors:\n    hots: \"#FFFFFF\"\n", ":4: theme.colors.hots: unknown role (the roles: accent, border, text, muted, rule, warn, error, ok, host, agent, help_key, help_desc", []string{"--demo", "doctor"}},
		{"theme:\n  base: dark\n  colors:\n    host: orange\n", `:4: theme.colors.host: "orange" is not a colour`, []string{"--demo", "doctor"}},
		{"theme:\n  base: light\n  colors:\n    chatgpt: \"#10A37F\"\n", ":4: theme.colors.chatgpt: #10A37F has 3.20:1 against the light theme's background; text needs 4.5:1", []string{"--demo"}},
	} {
		conf := filepath.Join(dir, fmt.Sprintf("colours%d.yaml", i))
		if err := os.WriteFile(conf, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, append([]string{"--config", conf, "--db", filepath.Join(dir, "p.db")}, c.args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || !strings.Contains(string(out), conf+c.want) {
			t.Errorf("%v: %v\n%s\nwant %s%s", c.args, err, out, conf, c.want)
		}
	}
}

// The colours set by role reach the terminal: the real binary in tmux, its
// screen read with its escape sequences (capture-pane -e), draws the
// active tab on the accent set, ChatGPT's panel title in its colour set,
// and the rules in theirs; the dark theme's own accent is gone. With
// NO_COLOR set, no colour at all.
func TestThemeColoursReachTheScreenInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	conf := filepath.Join(dir, "parley.yaml")
	body := "theme:\n  base: dark\n  colors:\n    accent: \"#FFD75F\"\n    chatgpt: \"#5FD7FF\"\n    rule: \"#5F0000\"\n"
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := startTmux(t, [2]int{100, 30}, "sleep 60")
	tm.run("respawn-pane", "-k", "-t", "p", fmt.Sprintf("cd %s && env -u NO_COLOR -u PARLEY_THEME -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY TERM=xterm-256color COLORTERM=truecolor %s --config %s --demo --db %s",
		dir, bin, conf, filepath.Join(dir, "colours.db")))
	tm.wait("the console", func(s string) bool { return strings.Contains(s, "1 mention") && strings.Contains(s, "ChatGPT") })
	styled := tm.run("capture-pane", "-p", "-e", "-t", "p")
	for what, sgr := range map[string]string{
		"the accent under the active tab": "48;2;255;215;95m",
		"ChatGPT's colour":                "38;2;95;215;255m",
		"the rules' colour":               "38;2;95;0;0m",
	} {
		if !strings.Contains(styled, sgr) {
			t.Errorf("no %s (%q) on the screen:\n%q", what, sgr, styled[:min(len(styled), 2000)])
		}
	}
	if strings.Contains(styled, "48;2;125;86;244m") {
		t.Error("the dark theme's own accent (#7D56F4) is still drawn")
	}
	// NO_COLOR still wins over the colours set.
	nc := startTmux(t, [2]int{100, 30}, fmt.Sprintf("cd %s && env -u PARLEY_THEME -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY NO_COLOR=1 TERM=xterm-256color COLORTERM=truecolor %s --config %s --demo --db %s",
		dir, bin, conf, filepath.Join(dir, "colours-nc.db")))
	nc.wait("the console without colour", func(s string) bool { return strings.Contains(s, "1 mention") && strings.Contains(s, "ChatGPT") })
	if got := colorSGR.FindString(nc.run("capture-pane", "-p", "-e", "-t", "p")); got != "" {
		t.Errorf("NO_COLOR set, the colours set by role are drawn: %q", got)
	}
}
