package alternate

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/dialogue"
)

// The host in the loop: when the door runs several steps as one run
// (`parley alternate --steps N`), alternate offers its host a point after
// the start turn and after each step that another of the run follows
// (modes.alternate.checkpoint, --checkpoint). Two agents taking turns do
// not vote, so alternate never splits: on_split never pauses it, only
// each_round does. The host may continue; add a note (the host's words, a
// user entry the next responder reads, none before); swap an agent for a
// configured agent seated nowhere, for the rest of the run; or stop: the
// run's remaining steps are not run, and the outcome says so, worded once
// (dialogue.AlternateStoppedSentence). Drop is not offered: two agents take
// turns, both seats are needed. The console and the API run one step per
// line or message: their host is already in the loop between steps, so
// they offer no point. A run waiting at a point is durable: what it needs
// to go on (savedRun) is saved with the point.

// CheckpointPolicy implements debate.Checkpointer.
func (Spec) CheckpointPolicy(c *config.Config) string { return c.Modes.Alternate.Checkpoint }

// savedRun is what an alternation waiting at a point needs to go on in
// another process.
type savedRun struct {
	// Ahead are the run's steps still to come after the point.
	Ahead int `json:"ahead"`
	// Seats are the pair now (a swap changes them).
	Seats [2]string `json:"seats"`
}

// checkpoint offers the host the point after the step done, with ahead
// steps of the run to come, and carries out the answer.
func (m *Alternate) checkpoint(ctx context.Context, done dialogue.AlternateStepFinished, ahead int) (stopped bool, err error) {
	pair := m.Agents()
	p := checkpoint.Point{Kind: checkpoint.KindStep, Round: done.Step, Of: done.Step + ahead, Summary: done.Sentence,
		Members: []string{pair[0].Name, pair[1].Name},
		Choices: []checkpoint.Action{checkpoint.Continue, checkpoint.Note, checkpoint.Stop}}
	for _, a := range pair {
		p.Kept = append(p.Kept, checkpoint.Kept{Name: a.Name, Why: a.Name + " cannot be dropped: two agents take turns, both seats are needed", Swappable: true})
	}
	if p.Agents = debate.FreeAgents(m.engine, pair); len(p.Agents) > 0 {
		p.Choices = append(p.Choices, checkpoint.Swap) // last: its list of agents may be long
	}
	b, _ := json.Marshal(savedRun{Ahead: ahead, Seats: [2]string{pair[0].Name, pair[1].Name}})
	p.Resume = string(b)
	return m.answerAt(ctx, p, ahead)
}

// answerAt asks the host at p, with ahead steps to come, and carries out
// the answer; a stop adds the outcome and reports stopped.
func (m *Alternate) answerAt(ctx context.Context, p checkpoint.Point, ahead int) (stopped bool, err error) {
	a, _, err := m.engine.Checkpoint(ctx, p)
	if err != nil {
		return false, err
	}
	switch a.Action {
	case checkpoint.Swap:
		pair := m.Agents()
		seat, in, err := debate.SwapIn(m.engine, pair, a)
		if err != nil {
			return false, err
		}
		m.mu.Lock()
		m.pair[seat] = in
		m.mu.Unlock()
		if m.engine.State(dialogue.StateStepNext) == a.Member { // the newcomer answers in its seat's turn
			m.engine.SetState(dialogue.StateStepNext, in.Name)
		}
	case checkpoint.Stop:
		m.engine.AddOutcome("Alternate", dialogue.AlternateStoppedSentence(p.Round, ahead))
		return true, nil
	}
	return false, nil
}

// ResumeCheckpoint implements debate.CheckpointResumer: the run saved at a
// point goes on from it in this one exchange — the host asked there again,
// then the run's remaining steps, with a point after each but the last.
func (m *Alternate) ResumeCheckpoint(ctx context.Context, p checkpoint.Point, resume string) error {
	var s savedRun
	if err := json.Unmarshal([]byte(resume), &s); err != nil {
		return fmt.Errorf("alternate: the run saved at the checkpoint cannot be read: %w", err)
	}
	if err := s.check(p); err != nil {
		return err
	}
	seats, err := m.engine.MustAgents(s.Seats[0], s.Seats[1])
	if err != nil {
		return fmt.Errorf("alternate: an agent seated at the checkpoint: %w", err)
	}
	m.mu.Lock()
	m.pair = [2]*debate.Agent{seats[0], seats[1]}
	m.mu.Unlock()
	if stopped, err := m.answerAt(ctx, p, s.Ahead); stopped || err != nil {
		return err
	}
	for ahead := s.Ahead - 1; ctx.Err() == nil; ahead-- {
		done, err := m.runStep(ctx, "")
		if err != nil || ahead == 0 {
			return err
		}
		if stopped, err := m.checkpoint(ctx, done, ahead); stopped || err != nil {
			return err
		}
	}
	return ctx.Err()
}

// check refuses a saved run that does not fit its point (the state is read
// back from a database another process may have written).
func (s savedRun) check(p checkpoint.Point) error {
	switch {
	case p.Kind != checkpoint.KindStep || p.Round < 0 || p.Round > config.MaxSteps:
		return fmt.Errorf("alternate: the run saved at the checkpoint does not match its point (%s)", p.Where())
	case s.Ahead < 1 || s.Ahead > config.MaxSteps:
		return fmt.Errorf("alternate: the run saved at the checkpoint has %d steps to come (1 to %d)", s.Ahead, config.MaxSteps)
	case s.Seats[0] == "" || s.Seats[1] == "" || s.Seats[0] == s.Seats[1]:
		return fmt.Errorf("alternate: the run saved at the checkpoint seats %v (two different agents)", s.Seats)
	}
	return nil
}
