package debate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/transcript"
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
	CheckpointPolicy(c *config.Config) string
}

// hosting is the run's host and its policy, under its own lock (a host
// is asked one point at a time: parallel tool calls queue).
type hosting struct {
	mu     sync.Mutex
	host   checkpoint.Host
	policy checkpoint.Policy // "": each mode's own
	asking sync.Mutex
	// held is the running exchange's lease, given back while the host is
	// asked (nil between exchanges).
	held *leaseHold
	// asked is the point the host is being asked now (nil: none).
	asked *checkpoint.Point
	// mode is the running exchange's mode, the one a point waits in.
	mode string
	// saving: a point is being saved and the lease given back; until then
	// Pending says no run waits, for a door that said "awaiting_host"
	// and a process killed meanwhile would have said what a restart
	// does not keep (a session waiting at nothing, or at a point whose
	// lease the killed process still held).
	saving bool
}

func (h *hosting) setSaving(on bool) {
	h.mu.Lock()
	h.saving = on
	h.mu.Unlock()
}

func (h *hosting) isSaving() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.saving
}

func (h *hosting) setMode(name string) {
	h.mu.Lock()
	h.mode = name
	h.mu.Unlock()
}

func (h *hosting) setLease(l *leaseHold) {
	h.mu.Lock()
	h.held = l
	h.mu.Unlock()
}

func (h *hosting) lease() *leaseHold {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held
}

// SetHost makes h the host every checkpoint asks, under policy (""
// leaves each mode's modes.<name>.checkpoint in force). Without a host no
// run pauses and a tool call under ask is refused.
func (e *Engine) SetHost(h checkpoint.Host, policy checkpoint.Policy) {
	e.hosting.mu.Lock()
	defer e.hosting.mu.Unlock()
	e.hosting.host, e.hosting.policy = h, policy
}

// CheckpointPolicy is the policy in force for the running exchange's mode
// (between exchanges, the session's).
func (e *Engine) CheckpointPolicy() checkpoint.Policy {
	e.hosting.mu.Lock()
	pol, mode := e.hosting.policy, e.hosting.mode
	e.hosting.mu.Unlock()
	if pol != "" {
		return pol
	}
	if mode == "" { // between exchanges: the session's mode
		mode = e.Info().Mode
	}
	if spec, ok := e.Config.ModeList.Spec(mode); ok {
		if c, ok := spec.(Checkpointer); ok {
			if p, err := checkpoint.ParsePolicy(c.CheckpointPolicy(e.Config)); err == nil {
				return p
			}
		}
	}
	return checkpoint.Never
}

// Checkpoint offers the host point p. When the run has no host, or its
// policy does not pause there, it returns continue at once (asked false).
// Otherwise it saves the point (with p.Resume, the mode's state to go on
// from it) in the session (unless it is too large: checkpointcap.go),
// announces it, waits until every door has shown
// what came before it and the store has written it, gives the session's
// lease back, and asks the host, for at most checkpoint_timeout. Then it
// takes the lease again, saves a note as the host's words, announces the
// answer and returns it for the mode to carry out. An error (the host
// cannot be asked, ctx ended, the session was taken meanwhile) ends the run.
func (e *Engine) Checkpoint(ctx context.Context, p checkpoint.Point) (a checkpoint.Answer, asked bool, err error) {
	e.hosting.mu.Lock()
	host, mode := e.hosting.host, e.hosting.mode
	e.hosting.mu.Unlock()
	if host == nil || !e.CheckpointPolicy().Pauses(p) {
		return checkpoint.Answer{Action: checkpoint.Continue}, false, nil
	}
	e.hosting.asking.Lock()
	defer e.hosting.asking.Unlock()
	pending := pendingCheckpoint{Point: p, Resume: p.Resume, Since: e.now().UTC(), Mode: mode, Policy: e.CheckpointPolicy()}
	if d := e.Config.CheckpointTimeout; d > 0 && p.Kind != checkpoint.KindTool {
		pending.Deadline = pending.Since.Add(d)
	}
	// A tool call waits inside a turn: durable only when the turn saved
	// what goes on from it (its exchange's last turn, toolresume.go). A
	// state too large to save is not durable either (checkpointcap.go).
	// The wait is said (Pending, the event) only once it is saved and the
	// lease given back: a door's "awaiting_host" then holds across a
	// restart of the process (hosting.saving).
	e.hosting.setSaving(true)
	durable := (p.Kind != checkpoint.KindTool || p.Resume != "") && e.savePending(&pending)
	e.drainSubscribers(ctx, 10*time.Second) // the round is on every screen and recorded
	e.flushJournal()                        // and saved, while this process holds the lease
	held := e.hosting.lease()
	if held != nil && durable { // a wait nothing saved keeps the session
		held.drop()
	}
	e.hosting.setSaving(false)
	e.Emit(CheckpointReached{Point: p, Sentence: checkpoint.PointSentence(p)})
	e.drainSubscribers(ctx, 10*time.Second) // the question is on every screen before it is asked
	e.hosting.setAsked(&p)
	a, err = e.askHost(ctx, host, pending)
	e.hosting.setAsked(nil)
	if held != nil {
		if lerr := held.retake(ctx); lerr != nil && err == nil {
			err = fmt.Errorf("after the checkpoint: %w", lerr)
		}
	}
	if err != nil {
		return checkpoint.Answer{}, true, err
	}
	if err := a.Check(p); err != nil {
		return checkpoint.Answer{}, true, fmt.Errorf("the host's answer: %w", err)
	}
	if durable {
		e.savePending(nil)
	}
	switch a.Action {
	case checkpoint.Note:
		e.AddEntry(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Round: p.Round, Text: a.Text})
	case checkpoint.Stop:
		e.stopRun()
	}
	e.Emit(CheckpointAnswered{Point: p, Answer: a, Sentence: checkpoint.AnswerSentence(p, a)})
	return a, true, nil
}

// askHost asks the host, until the pending point's deadline when it has
// one: then checkpoint_on_timeout answers (continue, or stop).
func (e *Engine) askHost(ctx context.Context, host checkpoint.Host, pending pendingCheckpoint) (checkpoint.Answer, error) {
	if pending.Deadline.IsZero() {
		return host.Answer(ctx, pending.Point)
	}
	timeout := checkpoint.Answer{Action: checkpoint.Action(e.Config.CheckpointOnTimeout), TimedOut: true}
	if timeout.Action == "" {
		timeout.Action = checkpoint.Continue
	}
	wait := pending.Deadline.Sub(e.now())
	if wait <= 0 { // resumed past its deadline
		return timeout, nil
	}
	hctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	a, err := host.Answer(hctx, pending.Point)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return timeout, nil
	}
	return a, err
}

// approveTool asks the host about a call whose rule is ask (the toolbox's
// approver): ok runs it; otherwise reason is the call's result. resume,
// when the turn can go on in a later process, is what the point saves
// (toolresume.go): the call's wait is then durable.
func (e *Engine) approveTool(a *Agent, resume func(providers.ToolCall) string, tt *toolTurn) func(ctx context.Context, call providers.ToolCall) (bool, string) {
	return func(ctx context.Context, call providers.ToolCall) (bool, string) {
		p := toolPoint(a, call)
		if resume != nil {
			p.Resume = resume(call)
		}
		ans, asked, err := e.Checkpoint(ctx, p)
		if err != nil && p.Resume != "" {
			// Saved: the run ends here and waits, as at a round; a later
			// process goes on from the point (toolresume.go).
			tt.waitErr = &waitingForHost{point: p, err: err}
		}
		return hostDecision(ans, asked, err)
	}
}

// toolPoint is the point a call under ask waits at.
func toolPoint(a *Agent, call providers.ToolCall) checkpoint.Point {
	return checkpoint.Point{Kind: checkpoint.KindTool, Summary: fmt.Sprintf("%s asks to call %s", a.Label(), call.Name),
		Members: []string{a.Name}, Choices: slices.Clone(checkpoint.ToolChoices),
		Tool: &checkpoint.ToolCall{Agent: a.Name, Tool: call.Name, Arguments: call.Arguments}}
}

// hostDecision is the host's answer at a tool point as the toolbox's
// approver says it: ok runs the call; otherwise reason is its result
// ("": the toolbox's own refusal of a run without a host).
func hostDecision(ans checkpoint.Answer, asked bool, err error) (ok bool, reason string) {
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

// flushJournal waits until the journal (the store) has written what its
// subscriber took so far, when it can say.
func (e *Engine) flushJournal() {
	e.appendMu.Lock()
	j := e.journal
	e.appendMu.Unlock()
	if f, ok := j.(interface{ Flush() error }); ok {
		_ = f.Flush() // a failed write is reported by the store itself
	}
}
