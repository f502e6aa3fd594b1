package debate

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/providers"
)

// The host in the loop: a mode offers the host a checkpoint.Point where it
// can pause (Session.Checkpoint); the run's policy decides whether it does;
// the door's checkpoint.Host answers. The engine announces the point and
// the answer as events, saves a note as the host's words and hands the
// answer back to the mode, which carries it out.

// CheckpointReached is a run waiting for its host at a point: what
// happened, where, and the choices (a pending tool call included).
type CheckpointReached struct {
	checkpoint.Point
	// Sentence says where the run waits and what happened, as every door
	// prints it (PointSentence).
	Sentence string `json:"sentence"`
}

// CheckpointAnswered is the host's answer at a point, and what it does in
// the words every door prints (AnswerSentence).
type CheckpointAnswered struct {
	Point    checkpoint.Point  `json:"point"`
	Answer   checkpoint.Answer `json:"answer"`
	Sentence string            `json:"sentence"`
}

func (CheckpointReached) EventType() string  { return "checkpoint" }
func (CheckpointAnswered) EventType() string { return "checkpoint_answered" }

// Checkpointer is a mode descriptor whose mode offers checkpoints; it
// names its section's policy (modes.<name>.checkpoint).
type Checkpointer interface {
	CheckpointPolicy(c *Config) string
}

// hosting is the run's host and its policy, under its own lock (a host
// is asked one point at a time: parallel tool calls queue).
type hosting struct {
	mu     sync.Mutex
	host   checkpoint.Host
	policy checkpoint.Policy // "": each mode's own
	asking sync.Mutex
}

// SetHost makes h the host every checkpoint asks, under policy (""
// leaves each mode's modes.<name>.checkpoint in force). Without a host no
// run pauses and a tool call under ask is refused.
func (e *Engine) SetHost(h checkpoint.Host, policy checkpoint.Policy) {
	e.hosting.mu.Lock()
	defer e.hosting.mu.Unlock()
	e.hosting.host, e.hosting.policy = h, policy
}

// CheckpointPolicy is the policy in force for the current mode.
func (e *Engine) CheckpointPolicy() checkpoint.Policy {
	e.hosting.mu.Lock()
	pol := e.hosting.policy
	e.hosting.mu.Unlock()
	if pol != "" {
		return pol
	}
	if spec, ok := e.Config.ModeList.Spec(e.Info().Mode); ok {
		if c, ok := spec.(Checkpointer); ok {
			if p, err := checkpoint.ParsePolicy(c.CheckpointPolicy(e.Config)); err == nil {
				return p
			}
		}
	}
	return checkpoint.Never
}

// Checkpoint offers the host point p. When the run has no host, or its
// policy does not pause there, it returns continue at once (a tool call:
// ok false, nothing asked). Otherwise it announces the point, waits until
// every door has shown what came before it, asks the host, saves a note
// as the host's words, announces the answer and returns it for the mode
// to carry out. An error (the host cannot be asked, ctx ended) ends the
// run.
func (e *Engine) Checkpoint(ctx context.Context, p checkpoint.Point) (a checkpoint.Answer, asked bool, err error) {
	e.hosting.mu.Lock()
	host := e.hosting.host
	e.hosting.mu.Unlock()
	if host == nil || !e.CheckpointPolicy().Pauses(p) {
		return checkpoint.Answer{Action: checkpoint.Continue}, false, nil
	}
	e.hosting.asking.Lock()
	defer e.hosting.asking.Unlock()
	e.Emit(CheckpointReached{Point: p, Sentence: checkpoint.PointSentence(p)})
	e.drainSubscribers(ctx, 10*time.Second) // the round is on every screen before the question
	a, err = host.Answer(ctx, p)
	if err != nil {
		return checkpoint.Answer{}, true, err
	}
	if err := a.Check(p); err != nil {
		return checkpoint.Answer{}, true, fmt.Errorf("the host's answer: %w", err)
	}
	if a.Action == checkpoint.Note {
		e.AddEntry(Entry{Kind: KindUser, Speaker: SpeakerUser, Round: p.Round, Text: a.Text})
	}
	e.Emit(CheckpointAnswered{Point: p, Answer: a, Sentence: checkpoint.AnswerSentence(p, a)})
	return a, true, nil
}

// ApproveTool asks the host about a call whose rule is ask (the toolbox's
// approver): ok runs it; otherwise reason is the call's result.
func (e *Engine) approveTool(a *Agent) func(ctx context.Context, call providers.ToolCall) (bool, string) {
	return func(ctx context.Context, call providers.ToolCall) (bool, string) {
		p := checkpoint.Point{Kind: checkpoint.KindTool, Summary: fmt.Sprintf("%s asks to call %s", a.Label(), call.Name),
			Members: []string{a.Name}, Choices: slices.Clone(checkpoint.ToolChoices),
			Tool: &checkpoint.ToolCall{Agent: a.Name, Tool: call.Name, Arguments: call.Arguments}}
		ans, asked, err := e.Checkpoint(ctx, p)
		switch {
		case err != nil:
			return false, "refused: the host could not be asked: " + err.Error()
		case !asked:
			return false, ""
		case ans.Action == checkpoint.Approve:
			return true, ""
		}
		return false, "refused by the host: " + ans.Text
	}
}

// drainSubscribers waits until every subscriber has taken what was
// emitted so far, for at most limit.
func (e *Engine) drainSubscribers(ctx context.Context, limit time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	e.emitMu.Lock()
	subs := slices.Clone(e.subs)
	e.emitMu.Unlock()
	for _, s := range subs {
		if s.drained(ctx) != nil {
			return
		}
	}
}
