package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// The console's frictions of issue 33, each walked in tmux with the real
// binary at 60×16, 100×30 and 200×50 and kept as golden screens captured
// while an answer is still streaming (a fake holds it), not only at the
// end. `go test ./cmd/parley -run Tmux -update-golden` rewrites them.

// tmuxSizes are the sizes every friction is walked at.
var tmuxSizes = [][2]int{{60, 16}, {100, 30}, {200, 50}}

// allKeysEnv is the shell environment that gives the binary every key,
// each vendor pointed at its fake.
func allKeysEnv(srv map[string]*providertest.Server) string {
	return fmt.Sprintf("OPENAI_API_KEY=k1 ANTHROPIC_API_KEY=k2 GEMINI_API_KEY=k3 OPENAI_BASE_URL=%s ANTHROPIC_BASE_URL=%s GOOGLE_GEMINI_BASE_URL=%s",
		srv["openai"].URL, srv["anthropic"].URL, srv["gemini"].URL)
}

// consoleCmd is the shell line that starts the binary in dir with env.
func consoleCmd(dir, bin, env, db string) string {
	return fmt.Sprintf("cd %s && env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY %s TERM=xterm-256color %s --db %s",
		dir, env, bin, filepath.Join(dir, db))
}

var (
	clockRE   = regexp.MustCompile(`\b\d\d:\d\d:\d\d\b`)
	sessionRE = regexp.MustCompile(`· [0-9a-f]{6} ·`)
	spinnerRE = regexp.MustCompile(`[\x{2800}-\x{28FF}]`)
	// The council shows each ranker the answers under shuffled labels.
	labelRE = regexp.MustCompile(`\(Response [A-Z]\)`)
)

// tmuxGolden compares a captured screen, with clock times, the session id
// spinner frames and the council's shuffled labels masked, to testdata/golden/console/name.
func tmuxGolden(t *testing.T, name, screen string) {
	t.Helper()
	got := clockRE.ReplaceAllString(screen, "hh:mm:ss")
	got = sessionRE.ReplaceAllString(got, "· ###### ·")
	got = spinnerRE.ReplaceAllString(got, "*")
	got = labelRE.ReplaceAllString(got, "(Response ?)")
	path := filepath.Join("testdata", "golden", "console", name)
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update-golden writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("screen %s differs from its golden:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// sizeName is "60x16".
func sizeName(size [2]int) string { return fmt.Sprintf("%dx%d", size[0], size[1]) }

// TestCouncilTableInTmux: with every key, a first question in mention
// mode, then a council: while the chairman streams, the council's ranking
// table shows a row for each answer with its Borda points at every size,
// 60×16 included (it showed only its two header lines there), and the
// session's title has followed the switch to council.
func TestCouncilTableInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	for _, size := range tmuxSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			hold := make(chan struct{})
			chair := providertest.Reply{Text: "Use NATS: it is lighter for a small team, and **JetStream** covers replay.",
				Usage: providers.Usage{InputTokens: 300, OutputTokens: 30}, Hold: hold, HoldAfter: 4}
			srv := councilServers(t, councilScript([]string{"claude", "gemini", "chatgpt"}, chair))
			tm := startTmux(t, size, consoleCmd(dir, bin, allKeysEnv(srv), "council"+sizeName(size)+".db"))
			tm.wait("the first screen", func(s string) bool { return strings.Contains(s, "Try") })
			// A first question in mention mode names the session "mention · …".
			tm.text("@all kafka or nats?")
			tm.keys("Enter")
			tm.wait("the mention answers", func(s string) bool { return strings.Contains(s, "\ndone ") })
			tm.keys("M-6")
			tm.wait("council mode", func(s string) bool { return strings.Contains(s, "Chairman") })
			tm.text("kafka or nats?")
			tm.keys("Enter")
			s := tm.wait("the table while the chairman streams", func(s string) bool {
				return strings.Contains(s, "Borda") && strings.Contains(s, "NATS: it is")
			})
			checkTableRows(t, s)
			// The title followed the switch: the header (which leaves out the
			// mode the tabs show) shows the question, not "mention · …".
			if head := strings.SplitN(s, "\n", 2)[0]; !strings.Contains(head, "@all") {
				t.Errorf("the title kept its first mode after the switch to council: %q", head)
			}
			tmuxGolden(t, "council-streaming-"+sizeName(size), s)
			close(hold)
			s = tm.wait("the chairman's answer and the outcome", func(s string) bool {
				return strings.Contains(s, "replay") && strings.Contains(s, "\ndone ") && (size[0] < 100 || strings.Contains(s, "ANSWERED by the chairman"))
			})
			checkTableRows(t, s)
			tmuxGolden(t, "council-done-"+sizeName(size), s)
		})
	}
}

// checkTableRows checks that each member's answer has its own row with
// its place's Borda points (claude 2, gemini 1, chatgpt 0).
func checkTableRows(t *testing.T, screen string) {
	t.Helper()
	for name, borda := range map[string]string{"Claude": "2", "Gemini": "1", "ChatGPT": "0"} {
		row := regexp.MustCompile(`(?m)^ +(\d )?` + name + ` .*\b` + borda + `\b`)
		if !row.MatchString(screen) {
			t.Errorf("no ranking row for %s with Borda %s:\n%s", name, borda, screen)
		}
	}
}

// TestResizeShowsStreamingTab: a council with every key, Claude still
// streaming its answer after Gemini and ChatGPT finished; shrinking the window from
// 200×50 to 100×30 to 60×16 (tabs) shows Claude's tab, not the first,
// finished one.
func TestResizeShowsStreamingTab(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	hold := make(chan struct{})
	defer close(hold)
	srv := councilServers(t, func(member string, stage int, _ providertest.Request) providertest.Reply {
		r := providertest.Reply{Text: "ANSWER from " + member + ": start with what you need.", Usage: providers.Usage{InputTokens: 100, OutputTokens: 10}}
		if member == "claude" && stage == 1 {
			r.Hold, r.HoldAfter = hold, 3
		}
		return r
	})
	tm := startTmux(t, tmuxSizes[2], consoleCmd(dir, bin, allKeysEnv(srv), "resize.db"))
	tm.wait("the first screen", func(s string) bool { return strings.Contains(s, "Try") })
	tm.keys("M-6")
	tm.wait("council mode", func(s string) bool { return strings.Contains(s, "Chairman") })
	tm.text("kafka or nats?")
	tm.keys("Enter")
	s := tm.wait("two answers done, Claude streaming", func(s string) bool {
		return strings.Count(s, "✓ done") == 2 && strings.Contains(s, "ANSWER from claude")
	})
	tmuxGolden(t, "resize-streaming-200x50", s)
	for _, size := range [][2]int{tmuxSizes[1], tmuxSizes[0]} {
		tm.run("resize-window", "-t", "p", "-x", fmt.Sprint(size[0]), "-y", fmt.Sprint(size[1]))
		s = tm.wait("the screen at "+sizeName(size), func(s string) bool {
			return framed(s, size) && strings.Contains(s, "ANSWER from claude")
		})
		tmuxGolden(t, "resize-streaming-"+sizeName(size), s)
	}
	if head := panelHead(s); !strings.Contains(head, "Claude") {
		t.Errorf("after the resize to tabs the panel shows %q, not Claude's stream:\n%s", head, s)
	}
}

// framed reports whether a capture is one whole frame at size: the header
// on the first row, the key help on the last (not a frame half redrawn
// after a resize).
func framed(screen string, size [2]int) bool {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if len(lines) != size[1] || !strings.HasPrefix(lines[0], "Parley ") || !strings.Contains(lines[len(lines)-1], "?/f1 all keys") {
		return false
	}
	for _, l := range lines {
		if len([]rune(l)) > size[0] {
			return false
		}
	}
	return !strings.Contains(screen, "2 alternate") || size[0] >= 70
}

// panelHead is the first line inside the first panel's box (its agent).
func panelHead(screen string) string {
	lines := strings.Split(screen, "\n")
	for i, l := range lines[:len(lines)-1] {
		if strings.HasPrefix(l, "╭") || strings.HasPrefix(l, "┏") {
			return lines[i+1]
		}
	}
	return ""
}

// TestStreamHoldsBackMarksInTmux: with one key, while ChatGPT's answer
// has an open ** span ("Here is how I see **the"), neither its panel nor
// the transcript shows the mark raw, at every size; once it closes the
// words show in bold.
func TestStreamHoldsBackMarksInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	for _, size := range tmuxSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			hold := make(chan struct{})
			srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Text: "Here is how I see **the real cost** of it.", Usage: providers.Usage{InputTokens: 100, OutputTokens: 10}, Hold: hold, HoldAfter: 6}
			})
			env := "OPENAI_API_KEY=k1 OPENAI_BASE_URL=" + srv.URL
			tm := startTmux(t, size, consoleCmd(dir, bin, env, "marks"+sizeName(size)+".db"))
			tm.wait("the first screen", func(s string) bool { return strings.Contains(s, "Try") })
			tm.text("@all kafka or nats?")
			tm.keys("Enter")
			s := tm.wait("the answer up to its open mark", func(s string) bool {
				return framed(s, size) && strings.Contains(s, "how I see") && strings.Contains(s, "streaming")
			})
			if strings.Contains(s, "**") || strings.Contains(s, "the real") {
				t.Errorf("the open ** span shows before it closes:\n%s", s)
			}
			tmuxGolden(t, "marks-streaming-"+sizeName(size), s)
			close(hold)
			s = tm.wait("the whole answer", func(s string) bool { return strings.Contains(s, "real cost") && strings.Contains(s, "\ndone ") })
			if strings.Contains(s, "**") {
				t.Errorf("the closed span shows its marks:\n%s", s)
			}
			tmuxGolden(t, "marks-done-"+sizeName(size), s)
			checkHelpColours(t, tm)
		})
	}
}

// checkHelpColours checks the key help's colours as the terminal got
// them: the descriptions in grey 246 (#949494), not 239 (#4A4A4A, hard to
// read on a dark background).
func checkHelpColours(t *testing.T, tm *tmuxPane) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(tm.run("capture-pane", "-e", "-p", "-t", "p"), "\n"), "\n")
	help := lines[len(lines)-1]
	if strings.Contains(help, "38;5;239") || strings.Contains(help, "38;2;74;74;74") || !strings.Contains(help, "38;5;246m") {
		t.Errorf("the key help's colours are not the readable greys: %q", help)
	}
}

// TestUnreadableVoteInTmux: MAGI with one key; CASPER answers prose that
// is no vote, twice. While BALTHASAR still streams, and at the end,
// CASPER's panel (or tab) says it is not a valid vote, with the reason the
// engine stored, instead of "✓ done" over an empty panel.
func TestUnreadableVoteInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	vote, _ := json.Marshal(map[string]string{"vote": "approve", "reasoning": "The data supports it.", "summary": "Go ahead."})
	for _, size := range tmuxSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			hold := make(chan struct{})
			var held atomic.Bool
			srv := providertest.OpenAI(t, func(r providertest.Request) providertest.Reply {
				use := providers.Usage{InputTokens: 100, OutputTokens: 10}
				switch {
				case strings.HasPrefix(r.System, "You are CASPER"):
					return providertest.Reply{Text: "I would rather not say.", Usage: use}
				case strings.HasPrefix(r.System, "You are BALTHASAR") && !held.Swap(true):
					return providertest.Reply{Text: string(vote), Usage: use, Hold: hold, HoldAfter: 3}
				}
				return providertest.Reply{Text: string(vote), Usage: use}
			})
			env := "OPENAI_API_KEY=k1 OPENAI_BASE_URL=" + srv.URL
			tm := startTmux(t, size, consoleCmd(dir, bin, env, "vote"+sizeName(size)+".db"))
			tm.wait("the first screen", func(s string) bool { return strings.Contains(s, "Try") })
			tm.keys("M-4")
			tm.wait("MAGI", func(s string) bool { return strings.Contains(s, "mode: magi") || strings.Contains(s, "MELCHIOR") })
			tm.text("Should we migrate to Postgres?")
			tm.keys("Enter")
			s := tm.wait("CASPER's unreadable vote while BALTHASAR streams", func(s string) bool {
				return framed(s, size) && strings.Contains(s, "CASPER") && strings.Contains(flatten(s), "unreadable vote after a retry") &&
					strings.Contains(s, "BALTHASAR") && !strings.Contains(s, "BALTHASAR ✓") && !strings.Contains(s, "BALTHASAR ✗") &&
					strings.Contains(s, "1 working") && // MELCHIOR's vote done: it answers at its own pace
					(size[0] < 100 || strings.Count(s, "The data supports") >= 2) // and BALTHASAR's first words
			})
			if size[0] < 100 {
				// Tabbed: the user picks CASPER's tab (two tabs reach the
				// panels, → moves to the next one).
				tm.keys("Tab")
				tm.keys("Tab")
				s = tm.wait("the panels focused", func(s string) bool { return framed(s, size) && strings.Contains(s, "┏") })
				// At least one press: the tab is then the user's choice, which
				// the next rounds keep.
				for i := 0; i < 3 && (i == 0 || !strings.Contains(panelHead(s), "CASPER")); i++ {
					before := panelHead(s)
					tm.keys("Right")
					s = tm.wait("the next tab", func(s string) bool { return framed(s, size) && panelHead(s) != before })
				}
				if !strings.Contains(panelHead(s), "CASPER") || !strings.Contains(s, "not a valid vote") {
					t.Fatalf("CASPER's tab does not say its vote is not valid:\n%s", s)
				}
			}
			checkInvalidVote(t, s, size)
			tmuxGolden(t, "vote-streaming-"+sizeName(size), s)
			close(hold)
			s = tm.wait("the verdict", func(s string) bool { return strings.Contains(s, "VERDICT") && strings.Contains(s, "\ndone") })
			checkInvalidVote(t, s, size)
			tmuxGolden(t, "vote-done-"+sizeName(size), s)
		})
	}
}

// checkInvalidVote checks that CASPER's vote is marked as no valid vote:
// its panel says so (tabbed: its tab is marked ✗), and nothing calls it
// done.
func checkInvalidVote(t *testing.T, screen string, size [2]int) {
	t.Helper()
	flat := flatten(screen)
	if !strings.Contains(flat, "✗ not a valid vote") && !strings.Contains(flat, "CASPER ✗") {
		t.Errorf("CASPER's panel does not say its vote is not valid:\n%s", screen)
	}
	if size[0] < 100 && !strings.Contains(screen, "CASPER ✗") {
		t.Errorf("CASPER's tab is not marked ✗:\n%s", screen)
	}
	if size[0] >= 100 && strings.Count(screen, "✓ done") > 2 {
		t.Errorf("CASPER's panel says done:\n%s", screen)
	}
}

var resumeRE = regexp.MustCompile(`parley --resume (\S+)`)

// TestResumeWithOtherKeysInTmux: a MAGI vote with one key (every member
// on gpt-6.1-sol), resumed with every key: the first frame names, on each
// panel, the model that wrote its answer (not today's), and draws each
// turn once; a new question then streams on today's models.
func TestResumeWithOtherKeysInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	vote, _ := json.Marshal(map[string]string{"vote": "approve", "reasoning": "The data supports it.", "summary": "Go ahead."})
	for _, size := range tmuxSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			use := providers.Usage{InputTokens: 100, OutputTokens: 10}
			one := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Text: string(vote), Usage: use}
			})
			db := "resume" + sizeName(size) + ".db"
			tm := startTmux(t, size, consoleCmd(dir, bin, "OPENAI_API_KEY=k1 OPENAI_BASE_URL="+one.URL, db))
			tm.wait("the first screen", func(s string) bool { return strings.Contains(s, "Try") })
			tm.keys("M-4")
			tm.wait("MAGI", func(s string) bool { return strings.Contains(s, "MELCHIOR") })
			tm.text("Should we migrate to Postgres?")
			tm.keys("Enter")
			tm.wait("a verdict", func(s string) bool { return strings.Contains(s, "VERDICT") && strings.Contains(s, "\ndone") })
			var id string
			last := time.Time{}
			tm.wait("the resume hint", func(string) bool {
				if time.Since(last) > 3*time.Second && !strings.Contains(tm.capture(), "Pane is dead") {
					tm.keys("C-c")
					last = time.Now()
				}
				if m := resumeRE.FindStringSubmatch(flatten(tm.run("capture-pane", "-p", "-J", "-S", "-100", "-t", "p"))); m != nil {
					id = m[1]
				}
				return id != ""
			})

			hold := make(chan struct{})
			srv := councilServers(t, func(string, int, providertest.Request) providertest.Reply {
				return providertest.Reply{Text: string(vote), Usage: use, Hold: hold, HoldAfter: 3}
			})
			tm = startTmux(t, size, consoleCmd(dir, bin, allKeysEnv(srv), db)+" --resume "+id)
			s := tm.wait("the resumed session", func(s string) bool { return framed(s, size) && strings.Contains(s, "MELCHIOR") })
			if strings.Contains(s, "claude-sonnet") || strings.Contains(s, "gemini-3") {
				t.Errorf("the resumed panels name today's models over gpt-6.1-sol's answers:\n%s", s)
			}
			checkEachTurnOnce(t, s)
			tmuxGolden(t, "resume-first-"+sizeName(size), s)
			tm.text("And to SQLite?")
			tm.keys("Enter")
			s = tm.wait("today's models streaming", func(s string) bool {
				return framed(s, size) && strings.Contains(s, "3 working") && strings.Count(s, "The data supports\n") >= 1 &&
					everyVoteShowsItsWords(s, "The data supports")
			})
			if size[0] >= 100 && !strings.Contains(s, "BALTHASAR claude-sonnet") {
				t.Errorf("the new vote does not name today's model on BALTHASAR's panel:\n%s", s)
			}
			tmuxGolden(t, "resume-streaming-"+sizeName(size), s)
			close(hold)
		})
	}
}

var turnHeadRE = regexp.MustCompile(`(?m)^  \d\d:\d\d:\d\d .*$`)

// checkEachTurnOnce checks that no transcript turn's header (time,
// speaker, round) is drawn twice on a screen (the first frame after a
// resume once drew a turn twice).
func checkEachTurnOnce(t *testing.T, screen string) {
	t.Helper()
	seen := map[string]bool{}
	for _, h := range turnHeadRE.FindAllString(screen, -1) {
		if seen[h] {
			t.Errorf("turn %q is drawn twice:\n%s", strings.TrimSpace(h), screen)
		}
		seen[h] = true
	}
}

// everyVoteShowsItsWords reports whether no panel on screen is still
// thinking and every streaming vote in the transcript shows words already:
// the three members answer in any order, so a capture must wait for all.
func everyVoteShowsItsWords(screen, words string) bool {
	if strings.Contains(screen, "thinking") {
		return false
	}
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if strings.Contains(l, "· streaming…") && (i+1 >= len(lines) || !strings.Contains(lines[i+1], words)) {
			return false
		}
	}
	return true
}
