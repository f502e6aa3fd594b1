package verdict

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
//	STOPPED by the host after round 2: 2 approve, 1 reject, 0 abstain, 0 invalid · so far: APPROVED · rule: majority · 3 calls saved
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
	if res.StopReason == StopHost {
		return fmt.Sprintf("STOPPED by the host after round %d: %s · so far: %s%s%s", len(res.Rounds), line, res.Verdict, DecisionNote(res), VoteCoverage(res))
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
//	STOPPED by the host after the rankings: 3 of 3 answers · top-ranked: GPT, mean rank 1.50 · no chairman's answer
//
// "" for a cancelled council.
func CouncilSentence(res CouncilResult) string {
	if res.Cancelled {
		return ""
	}
	ch := res.Chairman
	if ch.Status == CouncilStopped {
		valid := 0
		for _, a := range res.Answers {
			if a.Valid() {
				valid++
			}
		}
		line := fmt.Sprintf("STOPPED by the host after the %s: %d of %d answers", res.StoppedAfter, valid, len(res.Answers))
		if len(res.Aggregate) > 0 && res.Aggregate[0].Rankings > 0 {
			top := res.Aggregate[0]
			line += fmt.Sprintf(" · top-ranked: %s, mean rank %.2f", top.Display, top.MeanRank)
		}
		return line + " · no chairman's answer" + AnswerCoverage(res)
	}
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

// oneLine keeps a sentence on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
