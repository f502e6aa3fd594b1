package debate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// A tool call under ask waits for the host inside its member's turn. When
// that turn is its exchange's only planned turn (TurnSpec.last, set by
// Carry) and the call is its step's only one, the wait is durable like a
// round's: the point saves what the turn sent (its messages, the model's
// message with the call), the call, the calls the turn used and what its
// steps consumed. A run that ends there unanswered leaves the turn
// cancelled (killed: interrupted) with its text; a later one asks the host at the same point again, runs
// the call or its denial, and goes on in a new turn from the saved
// messages, charging it what the first turn's steps consumed unless that
// turn's entry already holds it. A turn among
// others (an @all round, a MAGI round) or a step of several calls still
// waits in its process only: the other turns' state is not saved.

// savedToolTurn is a turn waiting on a call's approval, as its point saves it.
type savedToolTurn struct {
	Agent       string              `json:"agent"`
	Round       int                 `json:"round,omitempty"`
	Prompt      string              `json:"prompt,omitempty"`
	Instruction string              `json:"instruction,omitempty"`
	Answer      bool                `json:"answer,omitempty"`
	Messages    []providers.Message `json:"messages"` // the last one is the model's, with Call
	Call        providers.ToolCall  `json:"call"`
	Used        int                 `json:"used"`  // the turn's calls, this one included
	Prior       providers.Usage     `json:"prior"` // what the turn's steps consumed
	// Turn is the waiting turn's number: when its entry was settled with
	// what it consumed (its run ended in its process), the new turn is not
	// charged for it again.
	Turn int `json:"turn,omitempty"`
}

// Bounds of a saved tool turn read back: it comes from a database another
// process (or a person) may have written.
const (
	maxSavedToolMessages = 4096
	maxSavedToolCalls    = 10000
	maxSavedTokens       = 1 << 40
	maxSavedNameBytes    = 256
)

// resumedCall is a saved call answered by the host, for the turn that
// goes on from it.
type resumedCall struct {
	call   providers.ToolCall
	ok     bool   // approved: the call runs
	reason string // otherwise its result ("": the toolbox's refusal without a host)
	used   int
	prior  providers.Usage
}

// toolTurnState returns what a point at one of this step's calls saves:
// the turn's messages so far, the model's message with the call, and what
// the turn used and consumed.
func (t *Turn) toolTurnState(messages []providers.Message, model providers.Message, tt *toolTurn, prior providers.Usage) func(providers.ToolCall) string {
	return func(call providers.ToolCall) string {
		st := savedToolTurn{Agent: t.spec.Agent.Name, Round: t.spec.Round, Prompt: t.spec.Prompt, Instruction: t.spec.Instruction,
			Answer: t.spec.Answer, Messages: append(slices.Clone(messages), model), Call: call, Used: tt.used, Prior: prior, Turn: t.entry.Turn}
		b, err := json.Marshal(st)
		if err != nil {
			return "" // not durable: it waits in this process
		}
		return string(b)
	}
}

// readSavedToolTurn reads a saved tool turn back and checks it: a member
// of this session, messages ending with the model's call, counts finite
// and bounded. Anything else is refused with the reason.
func (e *Engine) readSavedToolTurn(raw string) (savedToolTurn, *Agent, error) {
	var st savedToolTurn
	if len(raw) > maxPendingState {
		return st, nil, fmt.Errorf("the saved tool call is %d bytes, over %d", len(raw), maxPendingState)
	}
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return st, nil, fmt.Errorf("the saved tool call cannot be read: %w", err)
	}
	a, ok := e.Agent(st.Agent)
	if !ok {
		return st, nil, fmt.Errorf("the saved tool call is %q's, which is not in this session", st.Agent)
	}
	if err := checkSavedToolTurn(st); err != nil {
		return st, nil, fmt.Errorf("the saved tool call: %w", err)
	}
	return st, a, nil
}

func checkSavedToolTurn(st savedToolTurn) error {
	switch {
	case st.Round < 0 || st.Round > maxSavedToolCalls || st.Turn < 0:
		return fmt.Errorf("round %d out of range", st.Round)
	case st.Used < 1 || st.Used > maxSavedToolCalls:
		return fmt.Errorf("%d calls used, out of range", st.Used)
	case st.Call.Name == "" || len(st.Call.Name) > maxSavedNameBytes || len(st.Call.ID) > maxSavedNameBytes:
		return errors.New("the call has no name, or one too long")
	case len(st.Messages) < 1 || len(st.Messages) > maxSavedToolMessages:
		return fmt.Errorf("%d messages, want 1 to %d", len(st.Messages), maxSavedToolMessages)
	}
	for i, m := range st.Messages {
		if m.Role != providers.RoleUser && m.Role != providers.RoleAssistant && m.Role != providers.RoleTool {
			return fmt.Errorf("message %d has the role %q", i+1, clipRole(m.Role))
		}
	}
	last := st.Messages[len(st.Messages)-1]
	if last.Role != providers.RoleAssistant || !slices.ContainsFunc(last.ToolCalls, func(c providers.ToolCall) bool {
		return c.ID == st.Call.ID && c.Name == st.Call.Name
	}) {
		return errors.New("the last message is not the model's with the call")
	}
	u := st.Prior
	for _, n := range []int{u.InputTokens, u.OutputTokens, u.CachedTokens, u.CacheWriteTokens, u.ReasoningTokens, u.SearchCalls} {
		if n < 0 || n > maxSavedTokens {
			return fmt.Errorf("a token count of %d, out of range", n)
		}
	}
	return nil
}

func clipRole(r providers.Role) string {
	if len(r) > 16 {
		return string(r[:16]) + "…"
	}
	return string(r)
}

// resumeToolTurn goes on from a saved tool approval: the host is asked at
// the point again, and a new turn runs the call (or its denial) and goes
// on from the saved messages.
func (e *Engine) resumeToolTurn(ctx context.Context, p pendingCheckpoint) error {
	st, a, err := e.readSavedToolTurn(p.Resume)
	if err == nil && (p.Tool == nil || p.Tool.Agent != st.Agent || p.Tool.Tool != st.Call.Name || p.Tool.Arguments != st.Call.Arguments) {
		// The host approves what the point shows: a saved call that is
		// not that one is never run.
		err = errors.New("the saved tool call is not the one its point shows the host")
	}
	if err != nil {
		e.savePending(nil) // nothing could ever answer it
		return err
	}
	if en, settled := e.History().Get(st.Turn); settled && st.Turn > 0 && en.Usage.Total() > 0 {
		st.Prior = providers.Usage{} // its entry holds it (its run ended at the point in its process)
	}
	ok, reason := hostDecision(e.Checkpoint(ctx, p.Point))
	spec := TurnSpec{Agent: a, Kind: transcript.KindReply, Round: st.Round, Prompt: st.Prompt, Instruction: st.Instruction,
		Messages: st.Messages, Answer: st.Answer, last: true,
		resumed: &resumedCall{call: st.Call, ok: ok, reason: reason, used: st.Used, prior: st.Prior}}
	_, err = e.Reserve(spec).Run(ctx)
	return err
}

// runResumed runs the call a saved approval waited on (or its denial),
// records it as this turn's, and adds its result to req's messages.
func (t *Turn) runResumed(ctx context.Context, tt *toolTurn, req *providers.Request) {
	r := t.spec.resumed
	t.engine.takeCalls(1) // this exchange's count includes it
	call := r.call
	t.engine.Emit(ToolStarted{Turn: t.entry.Turn, Agent: t.spec.Agent.Name, CallID: call.ID, Tool: call.Name, Arguments: sanitize.Clip(call.Arguments, maxEventResult)})
	res := toolbox.Result{Call: call, IsError: true, Text: fmt.Sprintf("refused: the tool %s is not offered in this run", call.Name)}
	if tt != nil {
		tt.used = r.used
		res = tt.box.RunWith(ctx, call, func(context.Context, providers.ToolCall) (bool, string) { return r.ok, r.reason })
	}
	req.Messages = append(req.Messages, providers.Message{Role: providers.RoleTool, ToolResults: []providers.ToolResult{t.record(res)}})
}

// resumableTool reports whether a saved point is a tool approval a later
// process can go on from (it needs no mode's own state).
func resumableTool(p pendingCheckpoint) bool {
	return p.Kind == checkpoint.KindTool && p.Resume != ""
}

// waitingForHost ends a turn at a saved tool point its host did not
// answer in this process (its context ended, or the door pauses the run
// there): the run waits at the point.
type waitingForHost struct {
	point checkpoint.Point
	err   error
}

func (w *waitingForHost) Error() string {
	tool := "a tool"
	if w.point.Tool != nil {
		tool = w.point.Tool.Tool
	}
	return fmt.Sprintf("waiting for the host to approve or deny %s: the answer goes on in a new turn", sanitize.Clip(tool, 64))
}

func (w *waitingForHost) Unwrap() error { return w.err }
