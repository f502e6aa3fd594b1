package openaiapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/figures"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/providers"
)

// SessionHeader carries the id of the session a completion was saved as.
const SessionHeader = "X-Parley-Session"

// stateMetadata is the session state key holding the request's metadata.
const stateMetadata = "openai.metadata"

// call is one chat completion being answered.
type call struct {
	req     chatRequest
	target  target
	conv    conversation
	ignored []string
	user    string
}

func (d *Door) chat(w http.ResponseWriter, r *http.Request) {
	c, err := d.read(w, r)
	if err == nil {
		err = d.opts.Backend.Limit(w, r, c.user)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	ss, err := d.opts.Backend.Open(r.Context(), Spec{Mode: c.target.mode, User: c.user, Adjust: c.adjust})
	if err != nil {
		writeError(w, err)
		return
	}
	eng := ss.Engine()
	// Titled after the model asked and the question, not the line the
	// door types for it ("claude · Tabs or spaces?").
	_ = eng.Rename(debate.TitleFor(c.req.Model, c.conv.question))
	for _, en := range c.conv.entries(c.target.speaker, c.target.display) {
		eng.AddEntry(en)
	}
	if len(c.req.Metadata) > 0 {
		meta, _ := json.Marshal(c.req.Metadata)
		eng.SetState(stateMetadata, string(meta))
	}
	w.Header().Set(SessionHeader, ss.ID())
	if c.req.Stream {
		d.stream(w, r, c, ss)
		return
	}
	d.complete(w, r, c, ss)
}

// read decodes and checks the request.
func (d *Door) read(w http.ResponseWriter, r *http.Request) (*call, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, d.opts.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, errorf(http.StatusRequestEntityTooLarge, typeInvalid, "request_too_large", "the request body is larger than %d bytes", d.opts.MaxBody)
		}
		return nil, errorf(http.StatusBadRequest, typeInvalid, "invalid_body", "reading the body: %s", err)
	}
	c := &call{}
	if err := json.Unmarshal(data, &c.req); err != nil {
		return nil, errorf(http.StatusBadRequest, typeInvalid, "invalid_json", "the body is not a chat completion request: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(data, &fields)
	for k := range fields {
		if slices.Contains(Ignored, k) {
			c.ignored = append(c.ignored, k)
		}
	}
	slices.Sort(c.ignored)
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.target, err = d.targetOf(r.Context(), c.req.Model); err != nil {
		return nil, err
	}
	if c.conv, err = readMessages(c.req.Messages); err != nil {
		return nil, err
	}
	c.user = c.req.User
	if c.user == "" {
		c.user = r.Header.Get("X-Parley-User")
	}
	return c, nil
}

// check refuses the parameters Parley cannot honour as asked.
func (c *call) check() error {
	rq := c.req
	if rq.Model == "" {
		return badParam("model", "missing_model", "model: name one of council, magi, all or an agent (GET /v1/models)")
	}
	if rq.N != nil && *rq.N != 1 {
		return badParam("n", "unsupported_n", "n: a council gives one answer (n must be 1)")
	}
	for _, p := range []*int{rq.MaxTokens, rq.MaxCompletionTokens} {
		if p != nil && *p < 1 {
			return badParam("max_completion_tokens", "invalid_max_tokens", "max_tokens/max_completion_tokens: at least 1")
		}
		if p == nil {
			continue
		}
		if _, err := figures.Count("max_tokens/max_completion_tokens", int64(*p), config.MaxOutputTokens); err != nil {
			return badParam("max_completion_tokens", "invalid_max_tokens", "%v", err)
		}
	}
	switch rq.ReasoningEffort {
	case "", "none", "minimal", "low", "medium", "high", "xhigh":
	default:
		return badParam("reasoning_effort", "invalid_reasoning_effort", "reasoning_effort: %q is not one of none, minimal, low, medium, high, xhigh", rq.ReasoningEffort)
	}
	if len(rq.User) > 128 || strings.ContainsAny(rq.User, "\x00\n\r") {
		return badParam("user", "invalid_user", "user: at most 128 characters, no line breaks")
	}
	if len(rq.Metadata) > 16 {
		return badParam("metadata", "invalid_metadata", "metadata: at most 16 pairs")
	}
	for k, v := range rq.Metadata {
		if utf8.RuneCountInString(k) > 64 || utf8.RuneCountInString(v) > 512 {
			return badParam("metadata", "invalid_metadata", "metadata: keys up to 64 characters, values up to 512")
		}
	}
	return nil
}

// effortOf maps OpenAI's reasoning efforts onto Parley's three.
func effortOf(e string) string {
	switch e {
	case "none", "minimal", "low":
		return "low"
	case "xhigh":
		return "high"
	}
	return e
}

// adjust applies the request's effort to every agent and its answer limit
// to the agents whose turns are the answer.
func (c *call) adjust(cfg *config.Config) {
	limit := 0
	for _, p := range []*int{c.req.MaxTokens, c.req.MaxCompletionTokens} {
		if p != nil {
			limit = *p
		}
	}
	answering := answeringAgents(cfg, c.target)
	for i := range cfg.Agents {
		a := &cfg.Agents[i]
		if c.req.ReasoningEffort != "" {
			a.Effort = effortOf(c.req.ReasoningEffort)
		}
		if limit > 0 && slices.Contains(answering, a.Name) {
			a.MaxTokens = limit
		}
	}
}

// answeringAgents are the agents whose turns the core marks as the answer
// for a target: the council's chairman, @all's agents, the agent asked.
func answeringAgents(cfg *config.Config, t target) []string {
	switch {
	case t.mode == ModelCouncil:
		return []string{cfg.Modes.Council.Chairman}
	case t.headings:
		return cfg.Modes.Mention.Agents
	case t.mode == debate.ModeMention:
		return []string{t.speaker}
	}
	return nil
}

// runCtx ends when the client goes away: the run is cancelled, what
// arrived is saved, marked cancelled.
func runCtx(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithCancel(r.Context())
}

// outcome is a finished run read for the response.
type outcome struct {
	reasoning, content string
	usage              providers.Usage
	cost               float64
	status             string
	finish             string // finish_reason of a response that answers: stop or length
	err                *Error // set when the run must answer with an error
}

// finish reads the run's result, saves the session (or discards it) and
// says how the request ends.
func (d *Door) finish(ctx context.Context, c *call, ss Session, tr *translator, runErr error) (outcome, Extension) {
	var o outcome
	var capped string
	var failures []string
	o.reasoning, o.content, o.usage, o.cost, capped, failures = tr.result()
	answered, end := tr.ending()
	o.status, o.finish = endWhole, "stop"
	why := func() string {
		if len(failures) > 0 {
			return strings.Join(failures, "; ")
		}
		if runErr != nil {
			return runErr.Error()
		}
		return "no agent answered"
	}
	switch {
	case ctx.Err() != nil:
		o.status = "cancelled"
	case refusedBefore(runErr):
		o.status = "refused"
		o.err = asError(runErr)
	case capped != "" || spend.IsCap(runErr):
		o.status = "capped"
		if capped == "" {
			capped = runErr.Error()
		}
		o.err = errorf(http.StatusPaymentRequired, typeQuota, "cost_cap_reached", "Parley stopped the run at a spending cap: %s (session %s keeps what arrived)", capped, ss.ID())
	case !answered:
		o.status = endBroken
		o.err = errorf(http.StatusBadGateway, typeServer, "run_failed", "the run gave no answer: %s (session %s)", why(), ss.ID())
	case end == endBroken:
		o.status = endBroken
		o.err = errorf(http.StatusBadGateway, typeServer, "answer_incomplete", "the answer broke off: %s (session %s keeps what arrived)", why(), ss.ID())
	case end == endTruncated:
		o.status, o.finish = endTruncated, "length"
	case runErr != nil || len(failures) > 0:
		o.status = endBroken // an answer arrived whole; the failures are in the deliberation
	}
	ext := Extension{SessionID: ss.ID(), Saved: d.opts.Save, Mode: c.target.mode, Status: o.status, CostUSD: o.cost,
		CostUnknown: o.usage.PriceUnknown, Deliberation: o.reasoning, Ignored: c.ignored, Evidence: ss.Engine().Evidence().Listing()}
	// Saved even when the client left: a context of its own.
	if d.opts.Save {
		_ = ss.Settle(context.WithoutCancel(ctx))
	} else {
		_ = ss.Discard(context.WithoutCancel(ctx))
	}
	return o, ext
}

// refusedBefore reports a run the server refused before any call (a spend
// window without room: serve's 429), answered with its own status.
func refusedBefore(err error) bool {
	var se StatusError
	return errors.As(err, &se) && se.HTTPStatus() == http.StatusTooManyRequests
}

func usageOf(u providers.Usage) usage {
	return usage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens,
		PromptTokensDetails:     map[string]int{"cached_tokens": u.CachedTokens},
		CompletionTokensDetails: map[string]int{"reasoning_tokens": u.ReasoningTokens}}
}

// complete answers a request without streaming: one chat.completion.
func (d *Door) complete(w http.ResponseWriter, r *http.Request, c *call, ss Session) {
	ctx, cancel := runCtx(r)
	defer cancel()
	tr := newTranslator(c.target.headings, nil, nil)
	unsub := ss.Engine().Subscribe(tr.sink)
	runErr := ss.Run(ctx, c.target.prefix+c.conv.question)
	unsub()
	o, ext := d.finish(ctx, c, ss, tr, runErr)
	if ctx.Err() != nil {
		return // nobody to answer
	}
	if o.err != nil {
		writeError(w, o.err, &ext)
		return
	}
	WriteJSON(w, http.StatusOK, completion{
		ID: completionID(ss), Object: "chat.completion", Created: d.opts.Now().Unix(), Model: c.req.Model,
		Choices: []choice{{Message: responseMessage{Role: "assistant", Content: o.content, ReasoningContent: o.reasoning}, FinishReason: o.finish}},
		Usage:   usageOf(o.usage), Parley: ext,
	})
}

// completionID names the completion after its session.
func completionID(ss Session) string { return "chatcmpl-" + ss.ID() }
