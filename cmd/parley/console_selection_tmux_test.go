package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// TestUpAfterAskingInTmux is the defect as it was seen, in the real binary
// at 100×30: turn 18 selected, a question asked from the input, Tab back to
// the transcript, ↑ once went to turn 17 of the earlier exchange. It must
// go to the turn before the latest, and the rule must say so.
func TestUpAfterAskingInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "A short answer.", Usage: providers.Usage{InputTokens: 10, OutputTokens: 4}}
	})
	tm := startTmux(t, [2]int{100, 30}, fmt.Sprintf("cd %s && env -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY OPENAI_API_KEY=k1 OPENAI_BASE_URL=%s TERM=xterm-256color %s --db %s",
		dir, srv.URL, bin, filepath.Join(dir, "sel.db")))
	tm.wait("the first screen", func(s string) bool { return strings.Contains(s, "Try") })
	for i := 1; i <= 13; i++ { // 26 turns: a question and its answer each
		tm.text(fmt.Sprintf("@chatgpt question %d", i))
		tm.keys("Enter")
		tm.wait(fmt.Sprintf("answer %d", i), answered(fmt.Sprintf("@chatgpt question %d", i)))
	}
	tm.keys("Tab")
	tm.keys("g")
	for range 17 {
		tm.keys("Down")
	}
	tm.wait("turn 18 selected", func(s string) bool { return strings.Contains(s, "turn 18/26 selected") })
	tm.keys("BTab")
	tm.text("@chatgpt second question about queues")
	tm.keys("Enter")
	tm.wait("the answer", answered("@chatgpt second question about queues"))
	tm.keys("Tab")
	tm.keys("Up")
	tm.wait("turn 27 selected", func(s string) bool { return strings.Contains(s, "turn 27/28 selected") })
}

// answered reports a screen where question is a turn of the transcript with
// ChatGPT's answer after it. The question typed in the input and the
// previous exchange's "done" are no answer: waiting on them sent the next
// line while this one was still in flight (seen in CI under load: turn
// 18/22, the 13th question left in the input).
func answered(question string) func(string) bool {
	turn := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(question) + `\s*$`)
	return func(s string) bool {
		at := turn.FindStringIndex(s)
		return at != nil && strings.Contains(s[at[1]:], "ChatGPT 4 tok")
	}
}
