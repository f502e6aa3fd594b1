package debate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/tools"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// defaultMaxSteps bounds a tool loop when modes.agent.max_steps is 0.
const defaultMaxSteps = 20

// stepLimitError ends a tool loop that used every step without complete,
// or stopped early because the agent kept making the same protocol error.
type stepLimitError struct {
	Agent string
	Steps int // the step limit
	// Used and Repeated are set when the loop stopped early: after Used
	// replies, the last maxRepeatedSlips of them with the protocol error
	// Repeated.
	Used     int
	Repeated string
}

// maxRepeatedSlips identical tool-protocol errors in a row end a tool loop
// early: a model that repeats a slip after being told twice will not fix it,
// and every retry costs a full prompt.
const maxRepeatedSlips = 3

func (e *stepLimitError) Error() string {
	if e.Repeated != "" {
		return fmt.Sprintf("%s stopped after %d of %d steps without calling complete: the same tool-protocol error %d times in a row (%s)",
			e.Agent, e.Used, e.Steps, maxRepeatedSlips, e.Repeated)
	}
	return fmt.Sprintf("%s used all %d steps without calling complete (ask a narrower question, or raise modes.agent.max_steps)", e.Agent, e.Steps)
}

// MaxSteps is the configured step limit of a tool loop.
func (e *Engine) MaxSteps() int {
	if n := e.Config.Modes.Agent.MaxSteps; n > 0 {
		return n
	}
	return defaultMaxSteps
}

// runToolLoop lets spec.Agent use the workspace tools (list_file, read_file,
// complete) to answer spec: each model reply is one agent turn; a tool call
// in it is run in the engine's workspace and its result sent back, until the
// agent calls complete or maxSteps replies (0: the configured limit) are
// spent. A reply with no tool call at all is taken as the answer, so an agent
// may also just answer. The returned entry is the answer: Kind reply, Text
// the summary. spec.Messages is what the agent sees before the loop (built
// by the caller, so a parallel round stays blind to its siblings); the
// tool instructions are added to spec.Instruction. spec.Schema must be nil:
// structured output leaves no room for tool calls (ask for the vote after).
//
// A provider failure or cancel ends the loop with that error (the turn
// carries it); a tool error goes back to the model as the tool's result.
func (e *Engine) runToolLoop(ctx context.Context, spec TurnSpec, maxSteps int) (transcript.Entry, error) {
	return e.NewToolLoop(spec, maxSteps, false).Run(ctx)
}

// ToolLoop is one agent's use of the workspace tools for one question.
type ToolLoop struct {
	engine   *Engine
	spec     TurnSpec            // every step's turn, tool instructions included
	base     []providers.Message // what the agent saw before the loop
	maxSteps int
	// requireComplete (the agent mode) sends a reply without any tool call
	// back for a retry, as the seed's protocol does.
	requireComplete bool
	ws              *tools.Workspace // opened by newToolLoop, closed by run
	openErr         error            // the workspace could not be opened

	first     *Turn // the first step, when reserve took its place early
	firstCall *stepCall
}

func (e *Engine) NewToolLoop(spec TurnSpec, maxSteps int, requireComplete bool) *ToolLoop {
	if maxSteps <= 0 {
		maxSteps = e.MaxSteps()
	}
	l := &ToolLoop{engine: e, base: slices.Clone(spec.Messages), maxSteps: maxSteps, requireComplete: requireComplete}
	spec.Kind = transcript.KindReply
	spec.Schema = nil
	spec.Tools = true
	spec.Instruction = strings.TrimSpace(spec.Instruction + "\n\n" + tools.Instructions(maxSteps))
	l.spec = spec
	l.ws, l.openErr = tools.Open(e.Workspace())
	if l.ws != nil {
		l.ws.AllowHardLinks = e.Config.Modes.Agent.AllowHardLinks
	}
	return l
}

// Reserve takes the place of the loop's first reply in the history now, so
// a round of several agents keeps configuration order. Without a workspace
// nothing is reserved: run reports the error.
func (l *ToolLoop) Reserve() {
	if l.openErr != nil || l.first != nil {
		return
	}
	l.firstCall = &stepCall{}
	l.first = l.engine.Reserve(l.stepSpec(nil, l.firstCall))
}

// stepCall is what a step's Settle read from the reply.
type stepCall struct {
	call tools.Call
	err  error
}

// stepSpec is the next step's turn. Its Settle reads the tool call before
// the turn is announced as finished, so a complete is announced once, with
// the summary as its text.
func (l *ToolLoop) stepSpec(mine []transcript.Entry, into *stepCall) TurnSpec {
	turn := l.spec
	turn.Answer = false // a step's text is a tool call until the loop completes
	turn.Messages = l.engine.loopMessages(l.base, mine, l.spec.Agent.Name)
	turn.Settle = func(en transcript.Entry) transcript.Entry {
		if en.Status != transcript.StatusComplete {
			return en
		}
		into.call, into.err = tools.ParseCall(en.Text)
		if into.err == nil && into.call.Tool == tools.ToolComplete {
			en.Text = into.call.Summary
			en.ToolCalls = []transcript.ToolCall{{Tool: into.call.Tool, Parameters: into.call.Parameters()}}
		}
		return en
	}
	return turn
}

// Run runs the loop to its end and returns the answer's entry.
func (l *ToolLoop) Run(ctx context.Context) (transcript.Entry, error) {
	e, spec, a := l.engine, l.spec, l.spec.Agent
	if l.openErr != nil {
		err := l.openErr
		e.AddEntry(transcript.Entry{Kind: transcript.KindError, Speaker: a.Name, Round: spec.Round, Text: err.Error(), Error: err.Error(), Status: transcript.StatusError})
		e.Emit(ErrorOccurred{Agent: a.Name, Err: err.Error()})
		return transcript.Entry{}, err
	}
	defer l.ws.Close()
	var mine []transcript.Entry // the loop's own entries, which the agent sees after base
	var last transcript.Entry
	var slip string // the last protocol error, repeated slips times in a row
	slips := 0
	var stop error // set when the loop stops early
	for step := 1; step <= l.maxSteps; step++ {
		t, parsed := l.first, l.firstCall
		if step > 1 || t == nil {
			if err := ctx.Err(); err != nil {
				return last, err
			}
			parsed = &stepCall{}
			t = e.Reserve(l.stepSpec(mine, parsed))
		} // a reserved first turn runs even when cancelled, so it settles as cancelled
		en, err := t.Run(ctx)
		last = en
		if err != nil {
			return en, err // Run has recorded and announced the failure
		}
		mine = append(mine, en)
		if perr := parsed.err; perr != nil {
			if !l.requireComplete && tools.IsNoCall(perr) {
				return en, nil // a plain answer
			}
			if perr.Error() == slip {
				slips++
			} else {
				slip, slips = perr.Error(), 1
			}
			if slips >= maxRepeatedSlips {
				stop = &stepLimitError{Agent: a.Label(), Steps: l.maxSteps, Used: step, Repeated: slip}
				break
			}
			fb := e.AddEntry(transcript.Entry{Kind: transcript.KindToolResult, Speaker: a.Name, Round: spec.Round, Prompt: spec.Prompt,
				Text: tools.RetryMessage(perr) + stepsLeft(step, l.maxSteps), Error: perr.Error()})
			mine = append(mine, fb)
			continue
		}
		slip, slips = "", 0
		if parsed.call.Tool == tools.ToolComplete {
			return en, nil // Settle made the summary the answer's text
		}
		res := e.runTool(l.ws, en, parsed.call, spec)
		mine = append(mine, e.AddEntry(transcript.Entry{Kind: transcript.KindToolResult, Speaker: a.Name, Round: spec.Round, Prompt: spec.Prompt,
			Text: res + stepsLeft(step, l.maxSteps)}))
	}
	err := stop
	if err == nil {
		err = &stepLimitError{Agent: a.Label(), Steps: l.maxSteps}
	}
	e.AddEntry(transcript.Entry{Kind: transcript.KindError, Speaker: a.Name, Round: spec.Round, Prompt: spec.Prompt, Text: err.Error(), Error: err.Error(), Status: transcript.StatusError})
	e.Emit(ErrorOccurred{Turn: last.Turn, Agent: a.Name, Err: err.Error()})
	return last, err
}

// runTool runs one call, announcing it before and after, records it as a
// tool_call entry (its Text stays empty: the model's own reply, just
// before, already holds the call) and returns what the model gets back.
func (e *Engine) runTool(ws *tools.Workspace, turn transcript.Entry, call tools.Call, spec TurnSpec) string {
	a := spec.Agent
	tc := transcript.ToolCall{Tool: call.Tool, Parameters: call.Parameters()}
	e.Emit(ToolActivity{Turn: turn.Turn, Agent: a.Name, Call: tc})
	out, err := ws.Run(call)
	if err != nil {
		tc.Error = err.Error()
		out = "error: " + call.String() + ": " + err.Error()
	}
	tc.Result = out
	e.Emit(ToolActivity{Turn: turn.Turn, Agent: a.Name, Call: tc, Done: true})
	e.AddEntry(transcript.Entry{Kind: transcript.KindToolCall, Speaker: a.Name, Provider: turn.Provider, Model: turn.Model, Round: spec.Round,
		Prompt: spec.Prompt, ToolCalls: []transcript.ToolCall{tc}})
	return out
}

// stepsLeft warns the model when its next reply is its last.
func stepsLeft(step, maxSteps int) string {
	if maxSteps-step == 1 {
		return "\n\n[Only one reply is left: answer now with <complete><summary>…</summary></complete>.]"
	}
	return ""
}

// clippedResultBytes is what an older tool result keeps once the loop's
// messages outgrow the context budget.
const clippedResultBytes = 1024

// loopMessages is what the agent sees at the next step: the messages it
// started from, then its own replies (assistant) and the tool results
// (user). Past the context budget, the oldest tool results are clipped
// first; the newest stays whole, so the prompt of a long loop stays bounded.
func (e *Engine) loopMessages(base []providers.Message, mine []transcript.Entry, self string) []providers.Message {
	items := slices.Clone(base)
	first := len(items)
	for _, en := range mine {
		if m, ok := messageOf(en, View{Self: self}); ok {
			items = append(items, m)
		}
	}
	if budget := e.Config.ContextBudget(e.Info().Mode).Total; budget > 0 {
		total := 0
		for _, m := range items {
			total += transcript.EstimateTokens(m.Content)
		}
		lastResult := len(items) - 1
		for i := first; i < lastResult && total > budget; i++ {
			m := items[i]
			if m.Role != providers.RoleUser || len(m.Content) <= clippedResultBytes+200 {
				continue
			}
			short := sanitize.Clip(m.Content, clippedResultBytes) + "\n[older tool result shortened to save context; call the tool again if you need it whole]"
			total -= transcript.EstimateTokens(m.Content) - transcript.EstimateTokens(short)
			items[i].Content = short
		}
	}
	return MergeRoles(items)
}
