package debate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate/fieldstream"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// TurnSpec describes one model call that becomes one entry.
type TurnSpec struct {
	Agent       *Agent
	Kind        transcript.Kind // KindReply, KindModerator or KindVote
	Round       int
	Prompt      string // what the turn answers, kept in the record
	Instruction string // the mode's instructions, appended to the persona in the system prompt
	// System, when set, is the whole system prompt: no persona, no name
	// (the council's anonymous ranking must not tell a member who it is).
	System      string
	Messages    []providers.Message
	Schema      *providers.Schema
	IsModerator bool
	MaxTokens   int // 0: the agent's max_tokens
	// Purpose says what the call is for (providers.Purpose*; empty: derived
	// from Kind) and Tools that the workspace tool protocol is on; both
	// travel in the request's Meta for providers that answer from structure.
	Purpose string
	Tools   bool
	Rounds  int // the planned number of rounds, 0 when open-ended
	// Settle, when set, sees the finished entry before it is stored and
	// announced, and returns it with what the mode read from it (a MAGI
	// vote), so TurnFinished carries the final record once.
	Settle func(transcript.Entry) transcript.Entry
	// Answer marks a turn whose text is (part of) the exchange's answer —
	// the chairman's synthesis, an addressed agent's reply — rather than
	// deliberation; TurnStarted carries it so a door can tell them apart.
	Answer bool

	// last marks the exchange's only planned turn (Carry): nothing of the
	// exchange follows it, so a tool approval it waits for is saved and a
	// later process can go on from it (toolresume.go).
	last bool
	// resumed is the call a saved tool approval waited on, answered: the
	// turn runs it (or its denial) before its first request.
	resumed *resumedCall
}

// Turn is an agent turn that has its place in the history.
type Turn struct {
	engine *Engine
	spec   TurnSpec
	entry  transcript.Entry
}

// Reserve gives a turn its place in the history (status streaming) and
// announces it. Reserve parallel turns in configuration order before running them.
func (e *Engine) Reserve(spec TurnSpec) *Turn {
	if spec.Kind == "" {
		spec.Kind = transcript.KindReply
	}
	a := spec.Agent
	en := transcript.Entry{
		Kind: spec.Kind, Speaker: a.Name, Display: a.Label(), Provider: a.Provider.Name(), Model: a.Model,
		Mode: e.Info().Mode, Round: spec.Round, Prompt: spec.Prompt, IsModerator: spec.IsModerator,
		Status: transcript.StatusStreaming, Started: e.now(),
	}
	en = e.appendAndAnnounce(en, func(en transcript.Entry) Event { return TurnStarted{Entry: en, Answer: spec.Answer} })
	return &Turn{engine: e, spec: spec, entry: en}
}

// SystemPrompt is the persona followed by the mode's instructions.
func SystemPrompt(a *Agent, instruction string) string {
	var b strings.Builder
	b.WriteString("You are ")
	b.WriteString(a.Label())
	b.WriteString(", one of several AI agents at a round table hosted by a human user in Parley. ")
	b.WriteString("Messages from the host and from the other agents arrive prefixed with their name in brackets, e.g. [Host]: or [Gemini]:. Do not prefix your own answers.")
	if p := strings.TrimSpace(a.Persona); p != "" {
		b.WriteString("\n\n")
		b.WriteString(p)
	}
	if instruction = strings.TrimSpace(instruction); instruction != "" {
		b.WriteString("\n\n")
		b.WriteString(instruction)
	}
	return b.String()
}

// Run streams the turn to its end, emitting deltas, retries, usage and the
// finished entry, and settles the entry in the history. A cut or cancelled
// stream keeps the text that arrived. The returned error is the provider's
// (nil on success); the entry carries it too.
func (t *Turn) Run(ctx context.Context) (transcript.Entry, error) {
	e, a, spec := t.engine, t.spec.Agent, t.spec
	info := e.Config.ModelInfo(a.Model)
	maxTokens := spec.MaxTokens
	if maxTokens == 0 {
		maxTokens = a.MaxTokens
	}
	if maxTokens == 0 {
		// Always sent: a call with no output limit has no worst case.
		maxTokens = info.DefaultMaxTokens()
	}
	temperature := a.Temperature
	if !info.AcceptsTemperature() {
		temperature = nil // warned about at start, naming the config key
	}
	system := spec.System
	if system == "" {
		system = SystemPrompt(a, spec.Instruction)
	}
	req := providers.Request{
		Model: a.Model, System: system, Messages: spec.Messages,
		Schema: spec.Schema, MaxTokens: maxTokens, Temperature: temperature, Info: info,
		Effort: effortFor(a, info),
		Meta:   t.meta(),
		// Prompts only grow at their end between compactions (compact.go).
		CachePrefix: max(len(spec.Messages)-1, 0),
		OnRetry: func(n providers.RetryNotice) {
			e.Emit(Retrying{Turn: t.entry.Turn, Agent: a.Name, Attempt: n.Attempt, Wait: n.Wait, Err: errString(n.Err)})
		},
	}
	tt := t.toolsFor(&req) // native tools (nativetools.go)
	if t.spec.resumed != nil {
		t.runResumed(ctx, tt, &req) // the call a saved approval waited on (toolresume.go)
	}
	if ctx.Err() != nil && spend.IsCap(context.Cause(ctx)) {
		return t.refuse(context.Cause(ctx)) // the exchange already stopped at a cap
	}
	if err := overWindow(a.Provider.Name(), req, spec.Prompt); err != nil {
		en, err := t.end(transcript.StatusError, err)
		e.Emit(ErrorOccurred{Turn: en.Turn, Agent: a.Name, Err: err.Error(), Kind: string(providers.KindOf(err))})
		return en, err
	}
	admitted, err := e.admit(a, req, tt)
	if err != nil {
		return t.refuse(err)
	}
	e.sent(t.entry.Turn, providers.EstimatePromptTokens(req))
	streamCtx, endStream := streamContext(ctx)
	defer endStream()
	var text strings.Builder
	var streamed providers.Streamed
	res, prior, err := t.streamTools(streamCtx, &req, tt, &text, &streamed)
	// What the call consumed, whether or not its stream finished: the
	// provider's usage, or Parley's count of the prompt and of what
	// streamed when the final usage never came, plus failed attempts.
	usage, badUsage := checkedUsage(a.Label(), a.Model, providers.Charge(req, res, streamed, err).Add(res.Retried).Add(prior))
	if err != nil && streamCtx.Err() != nil && !errors.As(err, new(*waitingForHost)) {
		err = streamCtx.Err() // a cancel wins over whatever the SDK made of it
	}
	err = staleModel(err, a.Model, info, e.now())
	if err == nil {
		// A stream that ended "normally" may still be cut, refused,
		// filtered or empty: never a complete answer.
		if ferr := providers.FinishError(a.Provider.Name(), res, text.String(), maxTokens); ferr != nil {
			err = ferr
		}
	}
	en := t.entry
	en.Text = text.String()
	en.Usage = usage
	var priced bool
	en.Cost, priced = checkedCost(e.Config.CostAt(a.Model, usage, en.Started)) // the price in force on the call's day
	en.Usage.PriceUnknown = !priced && usage.Total() > 0
	en.Warning = admitted.overWorst(a, en)
	en.Finished = e.now()
	switch kind := providers.KindOf(err); {
	case err == nil:
		en.Status = transcript.StatusComplete
	case errors.As(err, new(*waitingForHost)):
		en.Status = transcript.StatusCancelled // it goes on in a new turn once its host answers
		en.Error = err.Error()
	case errors.Is(err, context.Canceled) || kind == providers.KindCanceled:
		en.Status = transcript.StatusCancelled
		en.Error = "cancelled"
	case kind == providers.KindRefused || kind == providers.KindEmpty:
		en.Status = transcript.StatusError
		en.Error = err.Error()
	case kind == providers.KindTruncated && en.Text != "":
		en.Status = transcript.StatusPartial
		pe, _ := providers.AsError(err)
		en.Error = pe.Message // "(cut at N output tokens — raise max_tokens)"
	case en.Text != "":
		en.Status = transcript.StatusPartial
		en.Error = err.Error()
	default:
		en.Status = transcript.StatusError
		en.Error = err.Error()
	}
	if spec.Settle != nil {
		en = spec.Settle(en)
		en.Turn = t.entry.Turn
	}
	en = e.settle(en)
	t.entry = en
	if en.Usage != (providers.Usage{}) {
		e.Emit(UsageReported{Turn: en.Turn, Agent: a.Name, Usage: en.Usage, Cost: en.Cost})
	}
	passed := admitted.settle(a, en.Cost, en.Usage)
	if en.Usage.PriceUnknown {
		e.hintPrice(a.Model)
	}
	e.Emit(TurnFinished{Entry: en})
	if en.Warning != "" {
		e.Emit(ErrorOccurred{Turn: en.Turn, Agent: a.Name, Err: en.Warning, Kind: KindOverWorstCase})
	}
	if badUsage != "" {
		e.Emit(ErrorOccurred{Turn: en.Turn, Agent: a.Name, Err: badUsage, Kind: KindBadUsage})
	}
	if err != nil && en.Status != transcript.StatusCancelled {
		e.Emit(ErrorOccurred{Turn: en.Turn, Agent: a.Name, Err: err.Error(), Kind: string(providers.KindOf(err))})
	}
	if passed != nil {
		e.stopAtCap(passed) // a cap passed is a cap reached
	}
	return en, err
}

// staleModel names the real cause when a call to a model the catalogue
// lists as shut down is refused by the provider (404, or 400 "model not
// found"): the shutdown and the replacement, not only the vendor's words.
func staleModel(err error, model string, info providers.ModelInfo, now time.Time) error {
	pe, ok := providers.AsError(err)
	if !ok || pe.Kind != providers.KindBadRequest || info.StatusAt(now) != "shutdown" {
		return err
	}
	when := ""
	if info.Shutdown != "" {
		when = " on " + info.Shutdown
	}
	instead := ""
	if info.Replacement != "" {
		instead = "; switch the agent's model to " + info.Replacement
	}
	stale := *pe
	stale.Message = fmt.Sprintf("%s was shut down%s%s (the provider said: %s)", model, when, instead, pe.Message)
	return &stale
}

// effortFor is the agent's effort level when its model takes it (warned
// about at start otherwise, naming the config key).
func effortFor(a *Agent, info providers.ModelInfo) string {
	if info.AcceptsEffort(a.Effort) {
		return a.Effort
	}
	return ""
}

// refuse settles a turn that was not started because of a cap: cancelled,
// its error naming the cap and the spend.
func (t *Turn) refuse(err error) (transcript.Entry, error) {
	return t.end(transcript.StatusCancelled, err)
}

// end settles a turn that never called its provider with status and err.
func (t *Turn) end(status transcript.Status, err error) (transcript.Entry, error) {
	en := t.entry
	en.Status, en.Error, en.Finished = status, err.Error(), t.engine.now()
	en = t.engine.settle(en)
	t.entry = en
	t.engine.Emit(TurnFinished{Entry: en})
	return en, err
}

// meta describes the turn for the request (providers.Meta).
func (t *Turn) meta() providers.Meta {
	spec := t.spec
	purpose := spec.Purpose
	if purpose == "" {
		switch {
		case spec.Tools:
			purpose = providers.PurposeToolStep
		case spec.Kind == transcript.KindVote:
			purpose = providers.PurposeVote
		default:
			purpose = providers.PurposeReply
		}
	}
	agent := spec.Agent.Label()
	if spec.System != "" {
		agent = "" // an anonymous turn (a council ranking) names nobody, not even to the adapter
	}
	return providers.Meta{Mode: t.entry.Mode, Purpose: purpose, Round: spec.Round, Rounds: spec.Rounds,
		Agent: agent, Tools: spec.Tools}
}

// hintPrice says once per engine and model that a model has no price, so
// its costs show "?" until the configuration gives one.
func (e *Engine) hintPrice(model string) {
	if _, told := e.priceHints.LoadOrStore(model, true); told {
		return
	}
	e.Emit(ErrorOccurred{Err: providers.PriceHint(model), Kind: "price_unknown"})
}

// stream reads the provider's answer into text. A panic anywhere in an SDK
// or adapter becomes this turn's error: nothing a provider sends may crash Parley.
func (t *Turn) stream(ctx context.Context, req providers.Request, text *strings.Builder, streamed *providers.Streamed) (res providers.Result, err error) {
	a := t.spec.Agent
	defer func() {
		if r := recover(); r != nil {
			err = &providers.Error{Provider: a.Provider.Name(), Kind: providers.KindOther, Message: fmt.Sprintf("internal error while reading the answer: %v", r)}
		}
	}()
	stream, err := a.Provider.Stream(ctx, req)
	if err != nil {
		return res, err
	}
	defer stream.Close()
	var fields *fieldstream.Decoder
	if t.spec.Schema != nil {
		fields = fieldstream.NewDecoder()
	}
	for stream.Next() {
		d := stream.Delta()
		if d == "" {
			continue
		}
		text.WriteString(d)
		streamed.Add(d)
		if fields == nil {
			t.engine.Emit(TextDelta{Turn: t.entry.Turn, Agent: a.Name, Text: d})
			continue
		}
		t.emitFields(fields.Write(d), d)
	}
	res = stream.Result()
	if fields != nil {
		pieces := fields.Flush()
		if len(res.ToolCalls) > 0 {
			// Text before a tool call is the model's narration, not the
			// structured answer (that is the last step's): it streams as
			// plain text, never as an answer that did not parse.
			for i := range pieces {
				if pieces[i].Field == fieldstream.Raw {
					pieces[i].Field = ""
				}
			}
		}
		t.emitFields(pieces, "")
	}
	return res, stream.Err()
}

// emitFields announces what the decoder read from a structured answer's
// chunk raw: its prose as deltas (the raw chunk rides on the first, or on
// an empty delta when the chunk held only syntax), complete values as
// FieldCompleted.
func (t *Turn) emitFields(pieces []fieldstream.Piece, raw string) {
	e, turn, agent := t.engine, t.entry.Turn, t.spec.Agent.Name
	for _, p := range pieces {
		if p.Complete {
			e.Emit(FieldCompleted{Turn: turn, Agent: agent, Field: p.Field, Value: p.Value})
			continue
		}
		e.Emit(TextDelta{Turn: turn, Agent: agent, Text: p.Text, Field: p.Field, Raw: raw})
		raw = ""
	}
	if raw != "" {
		e.Emit(TextDelta{Turn: turn, Agent: agent, Raw: raw})
	}
}

// TurnResult is one turn's outcome in a parallel round.
type TurnResult struct {
	Entry transcript.Entry
	Err   error
}

// RunAll runs reserved turns in parallel, so a round takes the time of its
// slowest agent. Reserve them in configuration order first; results are in
// the same order.
func RunAll(ctx context.Context, turns []*Turn) []TurnResult {
	out := make([]TurnResult, len(turns))
	InParallel(len(turns), func(i int) {
		en, err := turns[i].Run(ctx)
		out[i] = TurnResult{Entry: en, Err: err}
	})
	return out
}

// InParallel calls do(0) … do(n-1) at once and waits for all of them.
func InParallel(n int, do func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do(i)
		}()
	}
	wg.Wait()
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// overWindow refuses, before any call, a prompt the model cannot read
// whole: cutting it would lose the question without a word, and sending
// it would cost money to fail. The estimate is the one compaction uses
// (4 bytes a token), generous for prose; a model with no known window
// (Info.Context 0) is never refused.
func overWindow(provider string, req providers.Request, question string) error {
	window := req.Info.Context
	if window <= 0 {
		return nil
	}
	tokens := transcript.EstimateTokens(req.System)
	for _, m := range req.Messages {
		tokens += transcript.EstimateTokens(m.Content)
	}
	if tokens <= window {
		return nil
	}
	return &providers.Error{Provider: provider, Kind: providers.KindTooLong, Message: fmt.Sprintf(
		"the question is %d bytes and the whole prompt about %d tokens, over %s's context window of %d tokens: nothing was sent (shorten the question or ask a model with a larger window)",
		len(question), tokens, req.Model, window)}
}

// runRound reserves every turn in order, then runs them all in parallel,
// an agent with the files tool and no native tools reading the workspace
// through a tool loop first. The results are in the specs' order.
func (e *Engine) runRound(ctx context.Context, specs []TurnSpec) []TurnResult {
	runs := make([]func() (transcript.Entry, error), len(specs))
	for i, spec := range specs {
		if spec.Agent.Tools.Files() && e.NativeTools(spec.Agent) == nil {
			loop := e.NewToolLoop(spec, 0, false)
			loop.Reserve()
			runs[i] = func() (transcript.Entry, error) { return loop.Run(ctx) }
			continue
		}
		turn := e.Reserve(spec)
		runs[i] = func() (transcript.Entry, error) { return turn.Run(ctx) }
	}
	results := make([]TurnResult, len(runs))
	InParallel(len(runs), func(i int) {
		en, err := runs[i]()
		results[i] = TurnResult{Entry: en, Err: err}
	})
	return results
}

// roundError is a round's outcome: the cancel if the context was
// cancelled, else every turn's error joined.
func roundError(ctx context.Context, results []TurnResult) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return errors.Join(errs...)
}
