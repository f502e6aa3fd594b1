package debate

import (
	"fmt"
	"strings"
)

// VerdictSentence is a council's outcome in one sentence, written here once
// and printed as is by every door (console live and resumed, headless,
// sessions show, exports, the web page, MCP): the verdict, the round it
// came after, the tally and how it was decided, e.g.
//
//	REJECTED after round 3: 1 approve, 2 reject, 0 abstain, 0 invalid · rule: majority
//
// "" for a cancelled council, which decided nothing.
func VerdictSentence(res *MagiResult) string {
	if res.Cancelled {
		return ""
	}
	line := TallyLine(res.Tally)
	if res.AnswerType != "" {
		line = AnswerTallyLine(res.Tally)
	}
	return fmt.Sprintf("%s after round %d: %s%s%s", res.Verdict, len(res.Rounds), line, DecisionNote(res), VoteCoverage(res))
}

// NoDecision says why a MAGI council decided nothing, in the words every
// door prints after "no decision: " (the headless commands exit 3 with it);
// "" when the verdict stands. A verdict stands when the last round's valid
// votes make it: two valid approvals are APPROVED even beside an INVALID
// third (SPEC §6), and NO CONSENSUS is a verdict among valid votes. Only
// INCOMPLETE, an invalid vote leaving no majority, is no decision; a
// cancelled council is reported as cancelled, not here.
func NoDecision(res *MagiResult) string {
	if res.Cancelled || res.Verdict != VerdictIncomplete {
		return ""
	}
	var invalid []string
	if n := len(res.Rounds); n > 0 {
		for _, v := range res.Rounds[n-1] {
			if !v.Valid {
				invalid = append(invalid, fmt.Sprintf("%s round %d", v.Display, v.Round))
			}
		}
	}
	if len(invalid) == 0 {
		return "the verdict is INCOMPLETE: no vote was read"
	}
	return "the verdict is INCOMPLETE: the invalid votes (" + strings.Join(invalid, ", ") + ") leave no majority"
}

// CouncilSentence is a council's outcome in one sentence, printed as is by
// every door: who answered and which answer the members ranked first, or
// that the chairman failed and which answer stands in for it, e.g.
//
//	ANSWERED by the chairman (Claude) · top-ranked: GPT, mean rank 1.50
//	CHAIRMAN FAILED: timeout · FALLBACK: the top-ranked answer, by GPT
//
// "" for a cancelled council.
func CouncilSentence(res CouncilResult) string {
	if res.Cancelled {
		return ""
	}
	ch := res.Chairman
	if ch.Status != CouncilComplete {
		line := "CHAIRMAN FAILED: " + oneLine(ch.Error)
		if fb, ok := res.FallbackAnswer(); ok {
			return line + " · FALLBACK: the top-ranked answer, by " + fb.Display
		}
		return line + " · no answer to fall back on"
	}
	line := fmt.Sprintf("ANSWERED by the chairman (%s)", ch.Display)
	if len(res.Aggregate) > 0 && res.Aggregate[0].Rankings > 0 {
		top := res.Aggregate[0]
		line += fmt.Sprintf(" · top-ranked: %s, mean rank %.2f", top.Display, top.MeanRank)
	}
	return line + AnswerCoverage(res)
}

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
		if en.Status == StatusComplete {
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
	e.AddEntry(Entry{Kind: KindOutcome, Speaker: SpeakerSystem, Display: display, Text: sentence})
}
