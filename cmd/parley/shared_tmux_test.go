package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
	"github.com/parleyhq/parley/debate/store"
)

// TestConsoleFollowsAnotherProcess opens a session in the console (tmux)
// and adds a turn to it with `parley ask --session` in another process:
// the open console shows the other process's question and answer without
// a key pressed, each turn marked "via ask". The lag from the ask process's exit (its answer was
// committed before it) to the answer on screen is logged.
func TestConsoleFollowsAnotherProcess(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	db := filepath.Join(dir, "parley.db")
	env := []string{"OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "GEMINI_API_KEY=", "GOOGLE_API_KEY=", "PARLEY_DB=", fastDemo}
	ask := func(args ...string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--demo", "--db", db}, args...)...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ask: %v\n%s", err, out)
		}
	}
	ask("ask", "@chatgpt first question")
	id := testbin.LatestSession(t, db)
	socket := fmt.Sprintf("parley-follow-%d", os.Getpid())
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
		if err != nil && args[0] != "kill-server" {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() {
		panes, _ := exec.Command("tmux", "-L", socket, "list-panes", "-a", "-F", "#{pane_pid}").Output()
		tmux("kill-server")
		for _, sid := range paneSessions(string(panes)) {
			waitSessionGone(t, sid)
		}
	})
	shell := fmt.Sprintf("cd %s && env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY TERM=xterm-256color %s --demo --db %s --resume %s",
		dir, bin, db, id)
	tmux("new-session", "-d", "-s", "p", "-x", "120", "-y", "40", shell)
	waitScreen := func(what string, deadline time.Duration, ok func(string) bool) {
		t.Helper()
		end := time.Now().Add(deadline)
		poll := time.NewTicker(20 * time.Millisecond)
		defer poll.Stop()
		for {
			s := tmux("capture-pane", "-p", "-t", "p")
			if ok(flatten(s)) {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
			}
			<-poll.C
		}
	}
	waitScreen("the resumed session", tmuxWait, func(s string) bool { return strings.Contains(s, "first question") })
	ask("ask", "--session", id, "@gemini second from ask")
	saved := time.Now()
	waitScreen("the other process's answer", tmuxWait, func(s string) bool {
		return strings.Contains(s, "second from ask") && strings.Contains(s, "demo answer from Gemini")
	})
	waitScreen("the turns marked with their door", tmuxWait, func(s string) bool {
		return strings.Contains(s, "Gemini via ask") && strings.Contains(s, "You via ask")
	})
	t.Logf("lag from the ask process's exit to its answer on the open console: %v (PRAGMA data_version read every %v)",
		time.Since(saved).Round(time.Millisecond), store.FollowEvery)
}
