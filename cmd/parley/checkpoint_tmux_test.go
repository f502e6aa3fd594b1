package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/debatetest"
)

// The console at 100×30, mid-run: a MAGI council under
// modes.magi.checkpoint each_round waits after round 1 with the checkpoint
// bar above the input and the panels in place; the note typed there
// reaches every round-2 request as the host's words; stop after round 2
// ends the council and the verdict line says so.
func TestConsoleCheckpointInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	srv := debatetest.SplitMagiOpenAI(t)
	tm := startTmux(t, [2]int{100, 30}, fmt.Sprintf("cd %s && env -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY OPENAI_API_KEY=k1 OPENAI_BASE_URL=%s PARLEY_MODES_MAGI_CHECKPOINT=each_round TERM=xterm-256color %s --db %s",
		dir, srv.URL, bin, filepath.Join(dir, "c.db")))
	tm.wait("the first screen", func(s string) bool { return strings.Contains(s, "Try") })
	tm.keys("M-4")
	tm.wait("MAGI", func(s string) bool { return strings.Contains(s, "mode: magi") })
	tm.text("Should we ship on Friday?")
	tm.keys("Enter")
	s := tm.wait("the checkpoint bar after round 1", func(s string) bool {
		return strings.Contains(s, "⏸ Enter: continue") && strings.Contains(s, "CHECKPOINT after round 1 of 3")
	})
	if !sideBySide(s, "MELCHIOR", "BALTHASAR") {
		t.Errorf("the panels are not in place at the checkpoint:\n%s", s)
	}
	if got := len(srv.Requests()); got != 3 {
		t.Errorf("%d requests at the checkpoint, want round 1's 3", got)
	}
	tm.text("The budget was cut by half.")
	tm.keys("Enter")
	tm.wait("the checkpoint bar after round 2", func(s string) bool { return strings.Contains(s, "CHECKPOINT after round 2 of 3") })
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6", len(reqs))
	}
	for _, r := range reqs[3:] {
		if !strings.Contains(debatetest.MagiAllText(r.Messages), "[Host] (after round 1): The budget was cut by half.") {
			t.Errorf("a round-2 request lacks the host's note:\n%s", debatetest.MagiAllText(r.Messages))
		}
	}
	tm.text("stop")
	tm.keys("Enter")
	s = tm.wait("the stopped council", func(s string) bool { return strings.Contains(flatten(s), "STOPPED by the host after round 2") })
	if strings.Contains(s, "⏸") || len(srv.Requests()) != 6 {
		t.Errorf("after the stop: %d requests, screen:\n%s", len(srv.Requests()), s)
	}
}

// The console at 100×30, a talk under modes.talk.checkpoint each_round:
// after round 1's summary the checkpoint bar stands above the input with
// the panels in place; the note typed there reaches every later request
// as the host's words (none before it); stop after round 2's summary ends
// the talk with the MC's closing, and the outcome says the host stopped it.
func TestConsoleTalkCheckpointInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	srv := debatetest.SplitMagiOpenAI(t)
	tm := startTmux(t, [2]int{100, 30}, fmt.Sprintf("cd %s && env -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY OPENAI_API_KEY=k1 OPENAI_BASE_URL=%s PARLEY_MODES_TALK_CHECKPOINT=each_round TERM=xterm-256color %s --db %s",
		dir, srv.URL, bin, filepath.Join(dir, "t.db")))
	tm.wait("the first screen", func(s string) bool { return strings.Contains(s, "Try") })
	tm.keys("M-3")
	tm.wait("talk", func(s string) bool { return strings.Contains(s, "mode: talk") })
	tm.text("Is remote work here to stay?")
	tm.keys("Enter")
	s := tm.wait("the checkpoint bar after round 1's summary", func(s string) bool {
		return strings.Contains(s, "⏸ Enter: continue") && strings.Contains(flatten(s), "CHECKPOINT after round 1's summary")
	})
	if !sideBySide(s, "ChatGPT", "Gemini") {
		t.Errorf("the panels are not in place at the checkpoint:\n%s", s)
	}
	if got := len(srv.Requests()); got != 4 { // the opening, both guests, the summary
		t.Errorf("%d requests at the checkpoint, want 4", got)
	}
	const note = "The audience asks about rural broadband."
	tm.text(note)
	tm.keys("Enter")
	tm.wait("the checkpoint bar after round 2's summary", func(s string) bool {
		return strings.Contains(flatten(s), "CHECKPOINT after round 2's summary")
	})
	tm.text("stop")
	tm.keys("Enter")
	s = tm.wait("the stopped talk", func(s string) bool { return strings.Contains(flatten(s), "STOPPED by the host after round 2 of 3") })
	if strings.Contains(s, "⏸") {
		t.Errorf("the checkpoint bar stays after the stop:\n%s", s)
	}
	reqs := srv.Requests()
	if len(reqs) != 8 { // round 2's three and the closing after the note
		t.Fatalf("%d requests, want 8", len(reqs))
	}
	for i, r := range reqs {
		if has := strings.Contains(debatetest.MagiAllText(r.Messages), note); has != (i >= 4) {
			t.Errorf("request %d has the host's note: %v", i, has)
		}
	}
}
