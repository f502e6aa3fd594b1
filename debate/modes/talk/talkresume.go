package talk

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/figures"
	"github.com/parleyhq/parley/providers"
)

// A talk waiting at a checkpoint is durable as MAGI's and the council's
// runs are: the engine saves the point with savedTalk (the point's Resume)
// before it asks the host and gives the session's lease back while the
// host thinks; a later process — `parley talk --session ID`, the console's
// --resume, the API's or MCP's checkpoint answer — restores the talk from it
// and goes on from the point: the host's answer, the rounds left, the MC's
// closing. The transcript itself (the host's notes included) is the
// session's, read again from the store.

// savedTalk is what a talk waiting at a checkpoint needs to go on in
// another process.
type savedTalk struct {
	Topic  string `json:"topic"`
	Rounds int    `json:"rounds"`
	// Start is the turn number of the MC's opening (the talk's first turn,
	// always in every prompt).
	Start int `json:"start"`
	// Turns, Usage and Cost are counted so far, for the outcome.
	Turns int             `json:"turns"`
	Usage providers.Usage `json:"usage"`
	Cost  float64         `json:"cost_usd"`
	// Seats are guest A, guest B and the MC now (a swap changes them).
	Seats   []string `json:"seats"`
	Dropped []string `json:"dropped,omitempty"`
}

// ResumeCheckpoint implements debate.CheckpointResumer: the talk saved at
// the checkpoint goes on from it, the host asked there again.
func (m *Talk) ResumeCheckpoint(ctx context.Context, p checkpoint.Point, resume string) error {
	var s savedTalk
	if err := json.Unmarshal([]byte(resume), &s); err != nil {
		return fmt.Errorf("talk: the talk saved at the checkpoint cannot be read: %w", err)
	}
	if err := s.check(p, m.engine.History().Len()); err != nil {
		return err
	}
	seats, err := m.engine.MustAgents(s.Seats...)
	if err != nil {
		return fmt.Errorf("talk: an agent seated at the checkpoint: %w", err)
	}
	m.mu.Lock()
	m.a, m.b, m.mc = seats[0], seats[1], seats[2]
	m.stopping, m.byHost, m.calls, m.dropped = false, false, 0, map[string]bool{}
	for _, name := range s.Dropped {
		m.dropped[name] = true
	}
	m.open()
	m.mu.Unlock()
	tr := &talkRun{tk: talkContext{start: s.Start, topic: s.Topic, rounds: s.Rounds},
		done: dialogue.TalkFinished{Topic: s.Topic, Turns: s.Turns, Usage: s.Usage, Cost: s.Cost}}
	return m.carry(ctx, tr, p.Round, &p)
}

// usageInBounds reports whether every token count of u is from 0 to
// figures.MaxTokens (the outcome adds them up and prints them).
func usageInBounds(u providers.Usage) bool {
	for _, n := range []int{u.InputTokens, u.OutputTokens, u.CachedTokens, u.CacheWriteTokens, u.ReasoningTokens, u.SearchCalls} {
		if n < 0 || n > figures.MaxTokens {
			return false
		}
	}
	return true
}

// check refuses a saved talk that does not fit its point or the session
// (the state is read back from a database another process may have
// written): every number finite and in range, three different seats, at
// most one guest dropped and never the MC.
func (s savedTalk) check(p checkpoint.Point, turns int) error {
	bad := func(what string) error {
		return fmt.Errorf("talk: the talk saved at the checkpoint %s", what)
	}
	switch {
	case s.Topic == "":
		return bad("has no topic")
	case s.Rounds < 2 || s.Rounds > config.MaxRounds:
		return bad(fmt.Sprintf("has %d rounds (2 to %d)", s.Rounds, config.MaxRounds))
	case p.Kind != checkpoint.KindSummary || p.Round < 1 || p.Round >= s.Rounds:
		return bad(fmt.Sprintf("does not match its point (round %d of %d)", p.Round, s.Rounds))
	case s.Start < 1 || s.Start > turns:
		return bad(fmt.Sprintf("starts at turn %d of a session of %d", s.Start, turns))
	case s.Turns < 0 || s.Turns > turns:
		return bad(fmt.Sprintf("counts %d turns of a session of %d", s.Turns, turns))
	case math.IsNaN(s.Cost) || math.IsInf(s.Cost, 0) || s.Cost < 0 || s.Cost > figures.MaxMoneyUSD:
		return bad(fmt.Sprintf("has a cost that is not an amount from 0 to %v USD", figures.MaxMoneyUSD))
	case !usageInBounds(s.Usage):
		return bad(fmt.Sprintf("counts tokens outside 0 to %d", figures.MaxTokens))
	case len(s.Seats) != 3 || s.Seats[0] == s.Seats[1] || s.Seats[0] == s.Seats[2] || s.Seats[1] == s.Seats[2]:
		return bad(fmt.Sprintf("seats %v (three different agents)", s.Seats))
	case len(s.Dropped) > 1:
		return bad("dropped both guests")
	}
	for _, d := range s.Dropped {
		if !slices.Contains(s.Seats[:2], d) {
			return bad(fmt.Sprintf("dropped %s, who is not a guest", d))
		}
	}
	return nil
}
