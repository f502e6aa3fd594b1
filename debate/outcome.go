package debate

import (
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate/transcript"
)

// TalkSentence is a talk's outcome in one sentence: how it ended (all its
// rounds, stopped, cancelled), after which round, and its turns, e.g.
//
//	ENDED after 3 of 3 rounds · 11 turns
//	STOPPED after round 1 of 3 · 5 turns
func TalkSentence(t TalkFinished) string {
	how := "ENDED"
	switch {
	case t.Cancelled:
		how = "CANCELLED"
	case t.Stopped && t.ByHost:
		how = "STOPPED by the host"
	case t.Stopped:
		how = "STOPPED"
	}
	turns := fmt.Sprintf("%d turns", t.Turns)
	if t.Turns == 1 {
		turns = "1 turn"
	}
	if how == "ENDED" && t.Rounds == t.Planned {
		return fmt.Sprintf("%s after %d of %d rounds · %s", how, t.Rounds, t.Planned, turns)
	}
	return fmt.Sprintf("%s after round %d of %d · %s", how, t.Rounds, t.Planned, turns)
}

// StepSentence is an alternate step's outcome in one sentence: the step,
// who answered (or the error) and who answers next, e.g.
//
//	STEP 2: Claude answered · next: GPT
func StepSentence(s AlternateStepFinished) string {
	step := "START"
	if s.Step > 0 {
		step = fmt.Sprintf("STEP %d", s.Step)
	}
	var who []string
	for _, en := range s.Turn.Entries {
		if en.Status == transcript.StatusComplete {
			who = append(who, en.Display)
		}
	}
	line := step + ": "
	switch {
	case s.Error != "":
		line += "FAILED: " + oneLine(s.Error)
	case len(who) == 0:
		line += "no answer"
	default:
		line += strings.Join(who, " and ") + " answered"
	}
	return line + " · next: " + s.NextDisplay
}

// oneLine keeps a sentence on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// AddOutcome saves a mode's outcome sentence as an entry every door shows
// (KindOutcome); display names whose outcome it is ("Council", "Talk").
// An empty sentence (a cancelled exchange) adds nothing.
func (e *Engine) AddOutcome(display, sentence string) {
	if sentence == "" {
		return
	}
	e.AddEntry(transcript.Entry{Kind: transcript.KindOutcome, Speaker: transcript.SpeakerSystem, Display: display, Text: sentence})
}
