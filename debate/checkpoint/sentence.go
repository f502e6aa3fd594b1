package checkpoint

import (
	"fmt"
	"strings"
)

// The words every door prints about a checkpoint, written once here.

// Where says where a run waits, e.g. "after round 1 of 3", "before GPT's
// call to fetch_url".
func (p Point) Where() string {
	switch p.Kind {
	case KindRound:
		if p.Of > 0 {
			return fmt.Sprintf("after round %d of %d", p.Round, p.Of)
		}
		return fmt.Sprintf("after round %d", p.Round)
	case KindAnswers:
		return "after the answers"
	case KindRankings:
		return "after the rankings"
	case KindSummary:
		return fmt.Sprintf("after round %d's summary", p.Round)
	case KindStep:
		switch {
		case p.Round == 0:
			return "after the start"
		case p.Of > 0:
			return fmt.Sprintf("after step %d of %d", p.Round, p.Of)
		}
		return fmt.Sprintf("after step %d", p.Round)
	case KindTool:
		if p.Tool != nil {
			return fmt.Sprintf("before %s's call to %s", p.Tool.Agent, p.Tool.Tool)
		}
	}
	return "at a checkpoint"
}

// PointSentence is a checkpoint in one line, e.g.
//
//	CHECKPOINT after round 1 of 3: 2 approve, 1 reject, 0 abstain, 0 invalid
func PointSentence(p Point) string {
	line := "CHECKPOINT " + p.Where()
	if s := oneLine(p.Summary); s != "" {
		line += ": " + s
	}
	return line
}

// AnswerSentence is what the host's answer does, in one line, e.g.
//
//	the host added a note after round 1 of 3
//	the host dropped CASPER after round 1 of 3
//	the host denied fetch_url to GPT: not now
func AnswerSentence(p Point, a Answer) string {
	where := p.Where()
	if a.TimedOut {
		if a.Action == Stop {
			return "no answer from the host in time: the run stopped " + where
		}
		return "no answer from the host in time: the run continues " + where
	}
	switch a.Action {
	case Continue:
		return "the host let the run continue " + where
	case Note:
		return "the host added a note " + where
	case Drop:
		return fmt.Sprintf("the host dropped %s %s", a.Member, where)
	case Swap:
		return fmt.Sprintf("the host put %s in %s's seat %s", a.With, a.Member, where)
	case Stop:
		return "the host stopped the run " + where
	case Approve, Deny:
		tool, agent := "the tool", "the member"
		if p.Tool != nil {
			tool, agent = p.Tool.Tool, p.Tool.Agent
		}
		if a.Action == Approve {
			return fmt.Sprintf("the host approved %s for %s", tool, agent)
		}
		return fmt.Sprintf("the host denied %s to %s: %s", tool, agent, oneLine(a.Text))
	}
	return "the host answered " + where
}

// oneLine keeps a sentence on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// PendingSentence refuses a new question while the run waits at p, e.g.
//
//	the run waits for its host after round 1 of 3: answer that checkpoint first (continue, note, drop, swap, stop), then ask again
func PendingSentence(p Point) string {
	return fmt.Sprintf("the run waits for its host %s: answer that checkpoint first (%s), then ask again", p.Where(), joinActions(p.Choices))
}
