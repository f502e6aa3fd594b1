package dialogue

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

// AlternateStoppedSentence is alternate's outcome when its host stopped the
// run after step (0: the start turn) with left steps not run, e.g.
//
//	STOPPED by the host after step 2 of 5 · 3 steps not run
func AlternateStoppedSentence(step, left int) string {
	where := "after the start"
	if step > 0 {
		where = fmt.Sprintf("after step %d of %d", step, step+left)
	}
	line := "STOPPED by the host " + where
	switch left {
	case 0:
		return line
	case 1:
		return line + " · 1 step not run"
	}
	return fmt.Sprintf("%s · %d steps not run", line, left)
}
