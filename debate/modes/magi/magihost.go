package magi

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/verdict"
)

// The host in the loop: after each round but the last the council offers
// its host a checkpoint (modes.magi.checkpoint, --checkpoint). A note goes
// to every member in the rounds after it as the host's words; a dropped
// member abstains in the rounds after it; stop ends the council with the
// votes cast so far.

// CheckpointPolicy implements debate.Checkpointer.
func (Spec) CheckpointPolicy(c *debate.Config) string { return c.Modes.Magi.Checkpoint }

// hostTurn is what the host decided at the checkpoints of one council.
type hostTurn struct {
	notes   []hostNote
	dropped map[int]int // member index → the round after which it was dropped
	stopped bool
}

type hostNote struct {
	after int // the round it followed
	text  string
}

// checkpoint offers the host the point after round r of rounds and
// carries out the answer.
func (m *Magi) checkpoint(ctx context.Context, h *hostTurn, r, rounds int, votes []verdict.MagiVote) error {
	p := checkpoint.Point{Kind: checkpoint.KindRound, Round: r, Of: rounds, Summary: roundSummary(m.answer, votes),
		Split: !verdict.Unanimous(votes), Choices: []checkpoint.Action{checkpoint.Continue, checkpoint.Note, checkpoint.Stop}}
	if m.answer == verdict.AnswerApprove { // a dropped member abstains: an approve council's word
		p.Choices = []checkpoint.Action{checkpoint.Continue, checkpoint.Note, checkpoint.Drop, checkpoint.Stop}
		for i, a := range m.agents {
			if _, gone := h.dropped[i]; !gone {
				p.Members = append(p.Members, a.Name)
			}
		}
	}
	a, _, err := m.engine.Checkpoint(ctx, p)
	if err != nil {
		return err
	}
	switch a.Action {
	case checkpoint.Note:
		h.notes = append(h.notes, hostNote{after: r, text: a.Text})
	case checkpoint.Drop:
		for i, ag := range m.agents {
			if ag.Name == a.Member {
				h.dropped[i] = r
			}
		}
	case checkpoint.Stop:
		h.stopped = true
	}
	return nil
}

// roundSummary is a round's tally in one line, for the checkpoint.
func roundSummary(answer verdict.AnswerType, votes []verdict.MagiVote) string {
	words := make([]verdict.Vote, len(votes))
	for i, v := range votes {
		words[i] = v.Vote
	}
	if answer != verdict.AnswerApprove {
		return verdict.AnswerTallyLine(verdict.TallyAnswers(words))
	}
	return verdict.TallyLine(verdict.Tally(words))
}

// droppedVote is a dropped member's vote in a round after it left.
func (m *Magi) droppedVote(i, round, after int) verdict.MagiVote {
	a := m.agents[i]
	v := verdict.MagiVote{Agent: a.Name, Display: a.Label(), Provider: a.Provider.Name(), Model: a.Model, Round: round,
		Ballot: verdict.Ballot{Vote: verdict.VoteAbstain, Summary: fmt.Sprintf("dropped by the host after round %d", after)}, Valid: true}
	m.engine.Emit(debate.VoteCast{Agent: a.Name, Round: round, Vote: string(v.Vote), Valid: true, Summary: v.Summary})
	return v
}

// hostWords are the host's notes a member reads in round, in the host's
// words, "" when there are none.
func hostWords(h *hostTurn, round int) string {
	if h == nil {
		return ""
	}
	var b strings.Builder
	for _, n := range h.notes {
		if n.after < round {
			fmt.Fprintf(&b, "[%s] (after round %d): %s\n", debate.HostName, n.after, sanitize.Clip(n.text, checkpoint.MaxText))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n\nThe host's words to the council:\n\n" + strings.TrimSuffix(b.String(), "\n")
}
