package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConsoleInTmux runs the real binary in a tmux pane (skipped when tmux
// is missing or with -short): two agents answer side by side, alt+4 opens
// MAGI and a council votes, the transcript scrolls back to the first turn,
// and ctrl+c quits.
func TestConsoleInTmux(t *testing.T) {
	dir, bin := tmuxBinary(t)
	socket := fmt.Sprintf("parley-test-%d", os.Getpid())
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
		if err != nil && args[0] != "has-session" && args[0] != "kill-server" {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { tmux("kill-server") })
	shell := fmt.Sprintf("cd %s && env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY TERM=xterm-256color %s --demo --db %s",
		dir, bin, filepath.Join(dir, "parley.db"))
	tmux("new-session", "-d", "-s", "p", "-x", "120", "-y", "40", shell)
	capture := func() string { return tmux("capture-pane", "-p", "-t", "p") }
	waitScreen := func(what string, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		poll := time.NewTicker(100 * time.Millisecond)
		defer poll.Stop()
		for {
			s := capture()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
			}
			<-poll.C
		}
	}
	waitScreen("the console", func(s string) bool { return strings.Contains(s, "1 mention") })
	tmux("send-keys", "-t", "p", "-l", "@all hello")
	tmux("send-keys", "-t", "p", "Enter")
	s := waitScreen("two answers", func(s string) bool {
		return strings.Count(s, "✓ done") == 2 && strings.Contains(s, "\ndone ")
	})
	if !sideBySide(s, "Gemini", "ChatGPT") {
		t.Errorf("the two agents are not side by side:\n%s", s)
	}
	tmux("send-keys", "-t", "p", "M-4")
	waitScreen("MAGI panels", func(s string) bool { return sideBySide(s, "MELCHIOR", "BALTHASAR") })
	tmux("send-keys", "-t", "p", "-l", "Should we adopt Rust?")
	tmux("send-keys", "-t", "p", "Enter")
	s = waitScreen("a verdict", func(s string) bool {
		return strings.Contains(s, "VERDICT") && strings.Contains(s, "done · this exchange")
	})
	if !strings.Contains(s, "R3 ") {
		t.Errorf("panels do not show the third round's votes:\n%s", s)
	}
	tmux("send-keys", "-t", "p", "Tab")
	tmux("send-keys", "-t", "p", "Home")
	waitScreen("the first turn", func(s string) bool {
		return strings.Contains(s, "You") && strings.Contains(s, "@all hello") && strings.Contains(s, "turn 1/")
	})
	tmux("send-keys", "-t", "p", "C-c")
	deadline := time.Now().Add(10 * time.Second)
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	for exec.Command("tmux", "-L", socket, "has-session", "-t", "p").Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("ctrl+c did not quit; screen:\n%s", capture())
		}
		<-poll.C
	}
}

// sideBySide reports whether a and b appear on one line, a first.
func sideBySide(screen, a, b string) bool {
	for _, l := range strings.Split(screen, "\n") {
		i, j := strings.Index(l, a), strings.Index(l, b)
		if i >= 0 && j > i {
			return true
		}
	}
	return false
}
