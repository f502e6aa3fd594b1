package magi

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/verdict"
)

// The host in the loop: after each round but the last the council offers
// its host a checkpoint (modes.magi.checkpoint, --checkpoint). A note goes
// to every member in the rounds after it as the host's words; a dropped
// member abstains in the rounds after it; a swap seats another configured
// agent in a member's place for the rounds after it (the seat keeps its
// place in the council; the newcomer reads the question, its seat's earlier
// opinions as its predecessor's, and the others' as every member does);
// stop ends the council with the votes cast so far.

// CheckpointPolicy implements debate.Checkpointer.
func (Spec) CheckpointPolicy(c *config.Config) string { return c.Modes.Magi.Checkpoint }

// hostTurn is what the host decided at the checkpoints of one council.
type hostTurn struct {
	notes   []hostNote
	dropped map[int]int // member index → the round after which it was dropped
	swapped map[int]int // member index → the round after which another agent took the seat
	stopped bool
}

type hostNote struct {
	After int    `json:"after"` // the round it followed
	Text  string `json:"text"`
}

// council is what a council waiting at a checkpoint needs to go on in
// another process: saved with the point (the engine's pending checkpoint, its Resume).
type council struct {
	Question string             `json:"question"`
	Rounds   int                `json:"rounds"`
	Result   verdict.MagiResult `json:"result"`
	Notes    []hostNote         `json:"notes,omitempty"`
	Dropped  map[int]int        `json:"dropped,omitempty"`
	Research []string           `json:"research,omitempty"`
	Context  string             `json:"context,omitempty"`
	Members  []string           `json:"members"`
	// Seats are who sits in each member's place now (a swap changes it).
	Seats   []string    `json:"seats,omitempty"`
	Swapped map[int]int `json:"swapped,omitempty"`
}

// checkpoint offers the host the point after the last round in res and
// carries out the answer.
func (m *Magi) checkpoint(ctx context.Context, h *hostTurn, q string, rounds int, res *verdict.MagiResult) error {
	r := len(res.Rounds)
	votes := res.Rounds[r-1]
	p := checkpoint.Point{Kind: checkpoint.KindRound, Round: r, Of: rounds, Summary: roundSummary(m.answer, votes),
		Split: !verdict.Unanimous(votes), Choices: []checkpoint.Action{checkpoint.Continue, checkpoint.Note}}
	for i, a := range m.agents {
		if _, gone := h.dropped[i]; !gone {
			p.Members = append(p.Members, a.Name)
		}
	}
	if m.answer == verdict.AnswerApprove { // a dropped member abstains: an approve council's word
		p.Choices = append(p.Choices, checkpoint.Drop)
	}
	p.Choices = append(p.Choices, checkpoint.Stop)
	if p.Agents = debate.FreeAgents(m.engine, m.agents); len(p.Agents) > 0 {
		p.Choices = append(p.Choices, checkpoint.Swap) // last: its list of agents may be long
	}
	seats := make([]string, len(m.agents))
	for i, a := range m.agents {
		seats[i] = a.Name
	}
	saved, _ := json.Marshal(council{Question: q, Rounds: rounds, Result: *res, Notes: h.notes, Dropped: h.dropped,
		Research: m.notes, Context: m.context, Members: m.seatedFirst(), Seats: seats, Swapped: h.swapped})
	p.Resume = string(saved)
	return m.answerAt(ctx, h, p)
}

// answerAt asks the host at p and carries out the answer.
func (m *Magi) answerAt(ctx context.Context, h *hostTurn, p checkpoint.Point) error {
	a, _, err := m.engine.Checkpoint(ctx, p)
	if err != nil {
		return err
	}
	switch a.Action {
	case checkpoint.Note:
		h.notes = append(h.notes, hostNote{After: p.Round, Text: a.Text})
	case checkpoint.Drop:
		for i, ag := range m.agents {
			if ag.Name == a.Member {
				h.dropped[i] = p.Round
			}
		}
	case checkpoint.Swap:
		seat, in, err := debate.SwapIn(m.engine, m.agents, a)
		if err != nil {
			return err
		}
		m.mu.Lock()
		m.agents[seat] = in
		m.mu.Unlock()
		h.swapped[seat] = p.Round
	case checkpoint.Stop:
		h.stopped = true
	}
	return nil
}

// seatedFirst are the members the configuration seats, in council order
// (who sat before any swap).
func (m *Magi) seatedFirst() []string {
	return slices.Clone(m.engine.Configuration().Modes.Magi.Agents)
}

// ResumeCheckpoint implements debate.CheckpointResumer: the council saved
// at the checkpoint goes on from it, the host asked there again.
func (m *Magi) ResumeCheckpoint(ctx context.Context, p checkpoint.Point, resume string) error {
	var c council
	if err := json.Unmarshal([]byte(resume), &c); err != nil {
		return fmt.Errorf("magi: the council saved at the checkpoint cannot be read: %w", err)
	}
	if len(c.Result.Rounds) == 0 || len(c.Result.Rounds) != p.Round || c.Rounds < p.Round || c.Rounds > verdict.MagiRounds {
		return fmt.Errorf("magi: the council saved at the checkpoint does not match it (round %d)", p.Round)
	}
	if len(c.Members) != len(m.agents) {
		return fmt.Errorf("magi: the council saved at the checkpoint had %d members, this one has %d", len(c.Members), len(m.agents))
	}
	for i, a := range m.agents {
		if c.Members[i] != a.Name {
			return fmt.Errorf("magi: the council saved at the checkpoint seated %s where this one seats %s", c.Members[i], a.Name)
		}
	}
	if err := m.reseat(c.Seats); err != nil {
		return err
	}
	m.notes, m.context = c.Research, c.Context
	m.host = &hostTurn{notes: c.Notes, dropped: c.Dropped, swapped: c.Swapped}
	if m.host.dropped == nil {
		m.host.dropped = map[int]int{}
	}
	if m.host.swapped == nil {
		m.host.swapped = map[int]int{}
	}
	res := c.Result
	if err := m.answerAt(ctx, m.host, p); err != nil {
		res.Cancelled = true
		m.decide(&res, c.Question, c.Rounds)
		return err
	}
	if m.host.stopped {
		res.StopReason = verdict.StopHost
		return m.decide(&res, c.Question, c.Rounds)
	}
	return m.deliberate(ctx, c.Question, c.Rounds, &res, false)
}

// reseat seats the agents a saved council's swaps seated.
func (m *Magi) reseat(seats []string) error {
	if len(seats) == 0 {
		return nil
	}
	if len(seats) != len(m.agents) {
		return fmt.Errorf("magi: the council saved at the checkpoint had %d seats, this one has %d", len(seats), len(m.agents))
	}
	in, err := m.engine.MustAgents(seats...)
	if err != nil {
		return fmt.Errorf("magi: an agent seated at the checkpoint: %w", err)
	}
	m.mu.Lock()
	m.agents = in
	m.mu.Unlock()
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
	m.engine.Emit(verdict.VoteCast{Agent: a.Name, Round: round, Vote: string(v.Vote), Valid: true, Summary: v.Summary})
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
		if n.After < round {
			fmt.Fprintf(&b, "[%s] (after round %d): %s\n", debate.HostName, n.After, sanitize.Clip(n.Text, checkpoint.MaxText))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n\nThe host's words to the council:\n\n" + strings.TrimSuffix(b.String(), "\n")
}
