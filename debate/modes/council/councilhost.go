package council

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/verdict"
)

// The host in the loop: a council offers its host a checkpoint after the
// answers and after the rankings (modes.council.checkpoint, --checkpoint),
// each only when the council goes on after it. A note reaches every
// later stage as the host's words (the rankers after the answers, the
// chairman after either); a dropped member neither ranks nor is ranked
// after it, and the chairman does not weigh its answer or its ranking;
// stop ends the council there, without the chairman, and its outcome says
// so (verdict.CouncilSentence). The chairman, and the last two members,
// cannot be dropped: a point keeps them with the reason (checkpoint.Kept).

// CheckpointPolicy implements debate.Checkpointer.
func (Spec) CheckpointPolicy(c *config.Config) string { return c.Modes.Council.Checkpoint }

// hostTurn is what the host decided at the checkpoints of one council.
type hostTurn struct {
	notes   []hostNote
	stopped bool
}

type hostNote struct {
	After checkpoint.Kind `json:"after"` // the stage it followed
	Text  string          `json:"text"`
}

// stageOf numbers the stage a point follows: 1 the answers, 2 the
// rankings (the point's round, and the round of a note's entry).
func stageOf(k checkpoint.Kind) int {
	if k == checkpoint.KindRankings {
		return 2
	}
	return 1
}

// saved is what a council waiting at a checkpoint needs to go on in
// another process: saved with the point (the engine's pending checkpoint, its Resume).
type saved struct {
	Question string `json:"question"`
	// Turn is the question's entry: the chairman reads the history before it.
	Turn    int                   `json:"turn"`
	Result  verdict.CouncilResult `json:"result"`
	Notes   []hostNote            `json:"notes,omitempty"`
	Members []string              `json:"members"`
	Chair   string                `json:"chair"`
}

// offer asks the host at the point after stage k, or at the point a
// resumed council waits at (at), and carries out the answer.
func (c *Council) offer(ctx context.Context, k checkpoint.Kind, q string, turn int, res *verdict.CouncilResult, at *checkpoint.Point) error {
	if at != nil {
		return c.answerAt(ctx, *at, res)
	}
	p := c.point(k, res)
	names := make([]string, len(c.members))
	for i, a := range c.members {
		names[i] = a.Name
	}
	b, _ := json.Marshal(saved{Question: q, Turn: turn, Result: *res, Notes: c.host.notes, Members: names, Chair: c.chair.Name})
	p.Resume = string(b)
	return c.answerAt(ctx, p, res)
}

// point is the checkpoint after stage k: what happened, whether the
// members disagree, who sits, whom the host may not drop, and the choices.
func (c *Council) point(k checkpoint.Kind, res *verdict.CouncilResult) checkpoint.Point {
	p := checkpoint.Point{Kind: k, Round: stageOf(k), Choices: []checkpoint.Action{checkpoint.Continue, checkpoint.Note, checkpoint.Stop}}
	if k == checkpoint.KindAnswers {
		p.Summary, p.Split = answersSummary(res.Answers), answersSplit(res.Answers)
	} else {
		p.Summary, p.Split = rankingsSummary(res), rankingsSplit(res)
	}
	for _, a := range res.Answers {
		if a.Status != verdict.AnswerDropped {
			p.Members = append(p.Members, a.Member)
		}
	}
	p.Kept = []checkpoint.Kept{{Name: c.chair.Name, Why: "the chairman cannot be dropped: it writes the council's final answer"}}
	if !slices.Contains(p.Members, c.chairOf.Name) {
		p.Kept = append(p.Kept, checkpoint.Kept{Name: c.chairOf.Name, Why: c.chairOf.Name + " chairs the council and cannot be dropped"})
	}
	if len(p.Members) <= 2 {
		for _, m := range p.Members {
			p.Kept = append(p.Kept, checkpoint.Kept{Name: m, Why: m + " cannot be dropped: a council keeps two members, each ranking the other's answer"})
		}
		return p
	}
	p.Choices = []checkpoint.Action{checkpoint.Continue, checkpoint.Note, checkpoint.Drop, checkpoint.Stop}
	return p
}

// answerAt asks the host at p and carries out the answer on res.
func (c *Council) answerAt(ctx context.Context, p checkpoint.Point, res *verdict.CouncilResult) error {
	a, _, err := c.engine.Checkpoint(ctx, p)
	if err != nil {
		return err
	}
	switch a.Action {
	case checkpoint.Note:
		c.host.notes = append(c.host.notes, hostNote{After: p.Kind, Text: a.Text})
	case checkpoint.Drop:
		why := "dropped by the host " + p.Where()
		for i := range res.Answers {
			if res.Answers[i].Member == a.Member {
				res.Answers[i].Status, res.Answers[i].Error = verdict.AnswerDropped, why
			}
		}
		if p.Kind == checkpoint.KindRankings { // its ranking counts no more either
			for i := range res.Rankings {
				if res.Rankings[i].Ranker == a.Member {
					res.Rankings[i].Valid, res.Rankings[i].Error = false, why
				}
			}
			res.Aggregate = verdict.Aggregate(res.Answers, keptOrders(res))
		}
	case checkpoint.Stop:
		c.host.stopped = true
	}
	return nil
}

// stop ends a council the host stopped after stage k: no chairman, and
// the outcome says where it stopped.
func (c *Council) stop(res *verdict.CouncilResult, k checkpoint.Kind) error {
	res.Chairman.Status = verdict.CouncilStopped
	res.StoppedAfter = string(k)
	return c.finish(res, nil)
}

// ResumeCheckpoint implements debate.CheckpointResumer: the council saved
// at the checkpoint goes on from it, the host asked there again.
func (c *Council) ResumeCheckpoint(ctx context.Context, p checkpoint.Point, resume string) error {
	var s saved
	if err := json.Unmarshal([]byte(resume), &s); err != nil {
		return fmt.Errorf("council: the council saved at the checkpoint cannot be read: %w", err)
	}
	if p.Kind != checkpoint.KindAnswers && p.Kind != checkpoint.KindRankings {
		return fmt.Errorf("council: a council has no checkpoint %s", p.Where())
	}
	if len(s.Members) != len(c.members) || len(s.Result.Answers) != len(c.members) ||
		(p.Kind == checkpoint.KindRankings && len(s.Result.Rankings) != len(c.members)) {
		return fmt.Errorf("council: the council saved at the checkpoint had %d members, this one has %d", len(s.Members), len(c.members))
	}
	for i, a := range c.members {
		if s.Members[i] != a.Name || s.Result.Answers[i].Member != a.Name {
			return fmt.Errorf("council: the council saved at the checkpoint seated %s where this one seats %s", s.Members[i], a.Name)
		}
	}
	if s.Chair != c.chair.Name {
		return fmt.Errorf("council: the council saved at the checkpoint was chaired by %s, this one by %s", s.Chair, c.chair.Name)
	}
	c.host = &hostTurn{notes: s.Notes}
	res := s.Result
	return c.goOn(ctx, s.Question, s.Turn, &res, &p)
}

// answersSummary is the answers in one line, for the checkpoint.
func answersSummary(answers []verdict.CouncilAnswer) string {
	var valid int
	var failed []string
	for _, a := range answers {
		if a.Valid() {
			valid++
		} else {
			failed = append(failed, a.Display)
		}
	}
	line := fmt.Sprintf("%d of %d members answered", valid, len(answers))
	if len(failed) > 0 {
		line += " (no answer from " + strings.Join(failed, ", ") + ")"
	}
	return line
}

// answersSplit: after the answers the members disagree unless every one
// answered and the answers are the same once case, spacing, punctuation
// and symbols around and between words are ignored. Prose answers nearly
// always differ; short ones that agree word for word ("391", "391.") do
// not, so on_split skips them.
func answersSplit(answers []verdict.CouncilAnswer) bool {
	var first string
	for i, a := range answers {
		if !a.Valid() {
			return true
		}
		n := plainWords(a.Text)
		if i == 0 {
			first = n
		} else if n != first {
			return true
		}
	}
	return false
}

// plainWords is s lower-cased, its words without the punctuation and
// symbols around them, single-spaced.
func plainWords(s string) string {
	words := strings.Fields(strings.ToLower(s))
	out := words[:0]
	for _, w := range words {
		if w = strings.TrimFunc(w, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }); w != "" {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// rankingsSummary is the rankings in one line, for the checkpoint: each
// answer's first places, and the top of the aggregate.
func rankingsSummary(res *verdict.CouncilResult) string {
	display := map[string]string{}
	for _, a := range res.Answers {
		display[a.Member] = a.Display
	}
	firsts := map[string]int{}
	var order []string
	invalid := 0
	for _, r := range res.Rankings {
		switch {
		case r.Valid && len(r.Order) > 0:
			if firsts[r.Order[0]] == 0 {
				order = append(order, r.Order[0])
			}
			firsts[r.Order[0]]++
		case !dropped(res, r.Ranker):
			invalid++
		}
	}
	parts := make([]string, len(order))
	for i, m := range order {
		parts[i] = fmt.Sprintf("%s %d", display[m], firsts[m])
	}
	line := "first places: " + strings.Join(parts, ", ")
	if len(parts) == 0 {
		line = "no ranking was read"
	}
	if invalid > 0 {
		line += fmt.Sprintf(" · %d unreadable", invalid)
	}
	if len(res.Aggregate) > 0 && res.Aggregate[0].Rankings > 0 {
		top := res.Aggregate[0]
		line += fmt.Sprintf(" · top-ranked: %s, mean rank %.2f", top.Display, top.MeanRank)
	}
	return line
}

// rankingsSplit: after the rankings the members agree when one answer is
// first in every valid ranking that shows it (its author is never shown
// it, so its own ranking does not count). A ranking that could not be
// read, or none at all, is a split; a dropped member's does not count.
func rankingsSplit(res *verdict.CouncilResult) bool {
	var cast []verdict.CouncilRanking
	for _, r := range res.Rankings {
		if dropped(res, r.Ranker) {
			continue
		}
		if !r.Valid || len(r.Order) == 0 {
			return true
		}
		cast = append(cast, r)
	}
	if len(cast) == 0 {
		return true
	}
	for _, cand := range cast {
		top, agree := cand.Order[0], true
		for _, r := range cast {
			if r.Ranker != top && r.Order[0] != top {
				agree = false
				break
			}
		}
		if agree {
			return false
		}
	}
	return true
}

// dropped reports whether the host dropped member.
func dropped(res *verdict.CouncilResult, member string) bool {
	return slices.ContainsFunc(res.Answers, func(a verdict.CouncilAnswer) bool {
		return a.Member == member && a.Status == verdict.AnswerDropped
	})
}

// keptOrders are the rankings with the dropped members' answers taken out
// of each order, so the aggregate places the answers left among themselves.
func keptOrders(res *verdict.CouncilResult) []verdict.CouncilRanking {
	out := slices.Clone(res.Rankings)
	for i := range out {
		out[i].Order = slices.DeleteFunc(slices.Clone(out[i].Order), func(m string) bool { return dropped(res, m) })
	}
	return out
}

// hostWords are the host's notes the stage reads (2 the rankers, 3 the
// chairman), in the host's words, "" when there are none.
func hostWords(h *hostTurn, stage int) string {
	if h == nil {
		return ""
	}
	var b strings.Builder
	for _, n := range h.notes {
		if stageOf(n.After) < stage {
			fmt.Fprintf(&b, "[%s] (after the %s): %s\n", debate.HostName, n.After, sanitize.Clip(n.Text, checkpoint.MaxText))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n\nThe host's words to the council:\n\n" + strings.TrimSuffix(b.String(), "\n")
}
