package talk

import (
	"context"
	"encoding/json"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"
)

// The host in the loop: after each MC summary but the last (the closing
// follows it) a talk offers its host a checkpoint (modes.talk.checkpoint,
// --checkpoint). A talk never splits, its guests do not vote: on_split
// never pauses it, each_round pauses after every such summary. A note is
// saved as the host's words, which every later turn reads in the talk's
// transcript; drop leaves a guest out of the rounds after it (not the MC,
// who leads the talk, nor the last guest); swap seats another configured
// agent in a guest's or the MC's seat, which reads the whole transcript as
// every seat does; stop ends the talk with the MC's closing, and the
// outcome says the host stopped it. The talk's own /pause stays as it is.

// CheckpointPolicy implements debate.Checkpointer.
func (Spec) CheckpointPolicy(c *config.Config) string { return c.Modes.Talk.Checkpoint }

// seats are guest A, guest B and the MC now (a swap changes them).
func (m *Talk) seats() []*debate.Agent {
	m.mu.Lock()
	defer m.mu.Unlock()
	return []*debate.Agent{m.a, m.b, m.mc}
}

// guests are the guests still in the talk, A first.
func (m *Talk) guests() []*debate.Agent {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*debate.Agent
	for _, g := range []*debate.Agent{m.a, m.b} {
		if !m.dropped[g.Name] {
			out = append(out, g)
		}
	}
	return out
}

// isDropped reports whether the host dropped guest g.
func (m *Talk) isDropped(g *debate.Agent) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dropped[g.Name]
}

// checkpoint offers the host the point after round r's summary, with
// what the talk needs to go on from it in another process, and carries
// out the answer.
func (m *Talk) checkpoint(ctx context.Context, tr *talkRun, r int, summary transcript.Entry) error {
	seats, guests := m.seats(), m.guests()
	mc := seats[2]
	p := checkpoint.Point{Kind: checkpoint.KindSummary, Round: r, Of: tr.tk.rounds, Summary: sanitize.Clip(summary.Text, 300),
		Choices: []checkpoint.Action{checkpoint.Continue, checkpoint.Note, checkpoint.Drop, checkpoint.Stop}}
	for _, g := range guests {
		p.Members = append(p.Members, g.Name)
	}
	p.Members = append(p.Members, mc.Name)
	p.Kept = []checkpoint.Kept{{Name: mc.Name, Why: mc.Name + " is the MC and cannot be dropped: it leads the talk", Swappable: true}}
	if len(guests) == 1 {
		p.Kept = append(p.Kept, checkpoint.Kept{Name: guests[0].Name, Why: guests[0].Name + " is the last guest and cannot be dropped: a talk needs one", Swappable: true})
	}
	if p.Agents = debate.FreeAgents(m.engine, seats); len(p.Agents) > 0 {
		p.Choices = append(p.Choices, checkpoint.Swap) // last: its list of agents may be long
	}
	saved := savedTalk{Topic: tr.tk.topic, Rounds: tr.tk.rounds, Start: tr.tk.start, Turns: tr.done.Turns, Usage: tr.done.Usage, Cost: tr.done.Cost,
		Seats: []string{seats[0].Name, seats[1].Name, mc.Name}}
	for _, g := range seats[:2] {
		if m.isDropped(g) {
			saved.Dropped = append(saved.Dropped, g.Name)
		}
	}
	b, _ := json.Marshal(saved)
	p.Resume = string(b)
	return m.answerAt(ctx, p)
}

// answerAt asks the host at p and carries out the answer.
func (m *Talk) answerAt(ctx context.Context, p checkpoint.Point) error {
	a, _, err := m.engine.Checkpoint(ctx, p)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch a.Action {
	case checkpoint.Drop:
		m.dropped[a.Member] = true
	case checkpoint.Swap:
		seats := []*debate.Agent{m.a, m.b, m.mc}
		seat, in, err := debate.SwapIn(m.engine, seats, a)
		if err != nil {
			return err
		}
		*[]**debate.Agent{&m.a, &m.b, &m.mc}[seat] = in
	case checkpoint.Stop:
		m.stopping, m.byHost = true, true
	}
	return nil
}
