package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// The console's end-to-end tests: the real binary in a real terminal
// (tmux). They live beside the command, not in tui, so that the console's
// own tests do not build the whole tree.

// TestOneKeyConsoleInTmux runs the real binary with only OPENAI_API_KEY,
// pointed at a fake OpenAI, at three sizes: the first screen says whom
// @all asks and skips, MAGI says who stands in on which model, and its
// council gets three valid votes, every call on the one provider.
func TestOneKeyConsoleInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	vote, _ := json.Marshal(map[string]string{"vote": "approve", "reasoning": "The data supports it.", "summary": "Go ahead."})
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: string(vote), Usage: providers.Usage{InputTokens: 100, OutputTokens: 10}}
	})
	for _, size := range [][2]int{{60, 16}, {100, 30}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			before := len(srv.Requests())
			tm := startTmux(t, size, fmt.Sprintf("cd %s && env -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY OPENAI_API_KEY=k1 OPENAI_BASE_URL=%s TERM=xterm-256color %s --db %s",
				dir, srv.URL, bin, filepath.Join(dir, fmt.Sprintf("p%d.db", size[0]))))
			s := tm.wait("the first screen", func(s string) bool { return strings.Contains(s, "Try") })
			if flat := flatten(s); !strings.Contains(flat, "@all asks ChatGPT; skipped Gemini: no GEMINI_API_KEY") {
				t.Errorf("the first screen does not say whom @all skips:\n%s", s)
			}
			tm.keys("M-4")
			s = tm.wait("MAGI", func(s string) bool { return strings.Contains(s, "mode: magi") })
			if flat := flatten(s); !strings.Contains(flat, "BALTHASAR and CASPER run on gpt-6.1-sol: no ANTHROPIC_API_KEY, GEMINI_API_KEY") {
				t.Errorf("the status does not say, whole, who stands in:\n%s", s)
			}
			tm.text("Should we migrate to Postgres?")
			tm.keys("Enter")
			s = tm.wait("a verdict", func(s string) bool { return strings.Contains(s, "VERDICT") && strings.Contains(s, "done") })
			if !strings.Contains(s, "APPROVED") || strings.Contains(s, "INVALID") || strings.Contains(s, "API_KEY (or") {
				t.Errorf("the council did not decide on three valid votes:\n%s", s)
			}
			reqs := srv.Requests()[before:]
			if len(reqs) != 9 {
				t.Errorf("the one provider got %d calls, want 9", len(reqs))
			}
			// Quitting says which session was saved and how to come back.
			// (Ctrl+C again every few seconds: a first one may only cancel
			// what was still settling.)
			last := time.Time{}
			tm.wait("the resume hint", func(string) bool {
				if time.Since(last) > 3*time.Second && !strings.Contains(tm.capture(), "Pane is dead") {
					tm.keys("C-c")
					last = time.Now()
				}
				// The line may have scrolled above the pane: read its history too.
				// The test binary lives in a temporary directory, not on PATH,
				// as a `go run` build does: the hint says the command to run.
				return strings.Contains(flatten(tm.run("capture-pane", "-p", "-J", "-S", "-100", "-t", "p")), "saved · resume it with: go run ./cmd/parley --resume ")
			})
		})
	}
}

// tmuxWait bounds every wait on a console in tmux: generous, for a loaded
// machine (a wait that succeeds returns as soon as the screen shows it).
const tmuxWait = 2 * time.Minute

// tmuxBinary returns a temporary folder and the real binary (built once
// for the run, see testbin); it skips the test with -short or without tmux
// (fails without tmux when CI=true).
func tmuxBinary(t *testing.T) (dir, bin string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed: on CI the end-to-end console tests must run (apt-get install -y tmux)")
		}
		t.Skip("tmux is not installed")
	}
	return t.TempDir(), buildParley(t)
}

// flatten joins a screen's lines with spaces and squeezes runs of blanks
// and box borders, so a wrapped sentence reads as one.
func flatten(screen string) string {
	var words []string
	for _, l := range strings.Split(screen, "\n") {
		words = append(words, strings.Fields(strings.Trim(l, "│ "))...)
	}
	return strings.Join(words, " ")
}

// tmuxSockets numbers the private tmux servers of this process.
var tmuxSockets atomic.Int64

// tmuxPane is one console running in a private tmux server.
type tmuxPane struct {
	t      *testing.T
	socket string
}

func startTmux(t *testing.T, size [2]int, shell string) *tmuxPane {
	t.Helper()
	tm := &tmuxPane{t: t, socket: fmt.Sprintf("parley-test-%d-%d", os.Getpid(), tmuxSockets.Add(1))}
	t.Cleanup(func() {
		out, _ := exec.Command("tmux", "-L", tm.socket, "list-panes", "-a", "-F", "#{pane_pid}").Output()
		_ = exec.Command("tmux", "-L", tm.socket, "kill-server").Run()
		for _, sid := range paneSessions(string(out)) {
			waitSessionGone(t, sid)
		}
	})
	tm.run("new-session", "-d", "-s", "p", "-x", fmt.Sprint(size[0]), "-y", fmt.Sprint(size[1]), shell)
	tm.run("set-option", "-t", "p", "remain-on-exit", "on") // what it prints on quitting stays readable
	return tm
}

func (tm *tmuxPane) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (tm *tmuxPane) keys(k string)   { tm.run("send-keys", "-t", "p", k) }
func (tm *tmuxPane) text(s string)   { tm.run("send-keys", "-t", "p", "-l", s) }
func (tm *tmuxPane) capture() string { return tm.run("capture-pane", "-p", "-t", "p") }

// wait polls the screen until ok, for at most tmuxWait.
func (tm *tmuxPane) wait(what string, ok func(string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(tmuxWait)
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	for {
		s := tm.capture()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		<-poll.C
	}
}

// TestConsoleInTmux runs the real binary in a tmux pane (skipped when tmux
// is missing or with -short): two agents answer side by side, alt+4 opens
// MAGI and a council votes, the transcript scrolls back to the first turn,
// and ctrl+c quits.
func TestConsoleInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	tm := startTmux(t, [2]int{120, 40}, fmt.Sprintf("cd %s && env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY TERM=xterm-256color %s %s --demo --db %s",
		dir, fastDemo, bin, filepath.Join(dir, "parley.db")))
	tm.run("set-option", "-t", "p", "remain-on-exit", "off") // quitting ends the session
	tm.wait("the console", func(s string) bool { return strings.Contains(s, "1 mention") })
	tm.text("@all hello")
	tm.keys("Enter")
	s := tm.wait("two answers", func(s string) bool {
		return strings.Count(s, "✓ done") == 2 && strings.Contains(s, "\ndone ")
	})
	if !sideBySide(s, "Gemini", "ChatGPT") {
		t.Errorf("the two agents are not side by side:\n%s", s)
	}
	tm.keys("M-4")
	tm.wait("MAGI panels", func(s string) bool { return sideBySide(s, "MELCHIOR", "BALTHASAR") })
	tm.text("Should we adopt Rust?")
	tm.keys("Enter")
	s = tm.wait("a verdict", func(s string) bool {
		return strings.Contains(s, "VERDICT") && strings.Contains(s, "done · this exchange")
	})
	if !strings.Contains(s, "R3 ") {
		t.Errorf("panels do not show the third round's votes:\n%s", s)
	}
	tm.keys("Tab")
	tm.keys("Home")
	tm.wait("the first turn", func(s string) bool {
		return strings.Contains(s, "You") && strings.Contains(s, "@all hello") && strings.Contains(s, "turn 1/")
	})
	tm.keys("C-c")
	waitFor(t, tmuxWait, "quit after ctrl+c", func() bool {
		return exec.Command("tmux", "-L", tm.socket, "has-session", "-t", "p").Run() != nil
	})
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
