package debate

import "fmt"

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
	return fmt.Sprintf("%s after round %d: %s%s", res.Verdict, len(res.Rounds), line, DecisionNote(res))
}
