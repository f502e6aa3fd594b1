package debate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// Native tool calling: a member whose door gave it a toolbox (SetToolBoxes)
// and whose model takes tools (its catalogue entry is not tools_api: none)
// calls its tools inside its turn: the turn streams, runs the calls the
// model asked for (in parallel), sends the results back and streams again,
// until the model answers without a call. Each result becomes an evidence
// record (E1, E2, …) quoted to the model as untrusted data; each call is
// announced (ToolStarted, ToolFinished, EvidenceAdded) and saved as a
// tool_call entry holding the call, its result and its record.

// tooling is the engine's native tools: the boxes the door gave, the
// session's evidence ledger and the running exchange's call count.
type tooling struct {
	mu            sync.Mutex
	boxes         func(*Agent) *toolbox.Box
	exchangeCalls int
	ledger        evidence.Ledger
	searchCites   map[int][]string // turn → ids its vendor's citations cite (searchevidence.go)
}

// SetToolBoxes gives members their native tools: boxes returns an agent's
// box (nil: none). A door that never calls it runs no native tools.
func (e *Engine) SetToolBoxes(boxes func(*Agent) *toolbox.Box) {
	e.tooling.mu.Lock()
	defer e.tooling.mu.Unlock()
	e.tooling.boxes = boxes
}

// NativeTools is the box a's turns call natively, nil when a has none or
// its model takes no tools (tools_api: none in the catalogue: the XML
// protocol serves its files instead).
func (e *Engine) NativeTools(a *Agent) *toolbox.Box {
	e.tooling.mu.Lock()
	boxes := e.tooling.boxes
	e.tooling.mu.Unlock()
	if boxes == nil || e.Config.ModelInfo(a.Model).ToolsAPI == "none" {
		return nil
	}
	if b := boxes(a); b != nil && b.Len() > 0 {
		return b
	}
	return nil
}

// Evidence is the session's evidence ledger.
func (e *Engine) Evidence() *evidence.Ledger { return &e.tooling.ledger }

// newExchangeTools starts an exchange's call count.
func (e *Engine) newExchangeTools() {
	e.tooling.mu.Lock()
	e.tooling.exchangeCalls = 0
	e.tooling.searchCites = nil
	e.tooling.mu.Unlock()
}

// takeCalls grants up to n calls of the exchange's bound.
func (e *Engine) takeCalls(n int) int {
	limit := e.Config.Tools.MaxToolCallsPerExchange
	e.tooling.mu.Lock()
	defer e.tooling.mu.Unlock()
	if limit > 0 {
		n = max(min(n, limit-e.tooling.exchangeCalls), 0)
	}
	e.tooling.exchangeCalls += n
	return n
}

// restoreEvidence puts a loaded session's records back in the ledger.
func (e *Engine) restoreEvidence(entries []transcript.Entry) {
	var records []evidence.Record
	for _, en := range entries {
		records = append(records, en.Evidence...)
	}
	e.tooling.ledger.Restore(records)
}

// toolTurn is one turn's native tool use.
type toolTurn struct {
	box    *toolbox.Box
	limit  int // calls this turn may make
	used   int
	capped bool // the limit was reached: the model was told to answer now
	// waitErr ends the turn at a saved tool point its host did not answer
	// (toolresume.go).
	waitErr error
}

// Tool events.
type (
	// ToolStarted is a native tool call starting.
	ToolStarted struct {
		Turn      int    `json:"turn"`
		Agent     string `json:"agent"`
		CallID    string `json:"call_id"`
		Tool      string `json:"tool"`
		Arguments string `json:"arguments"`
	}
	// ToolFinished is its end: Result is what the model got (clipped for
	// the event), Evidence the record's id ("" for an error).
	ToolFinished struct {
		Turn      int    `json:"turn"`
		Agent     string `json:"agent"`
		CallID    string `json:"call_id"`
		Tool      string `json:"tool"`
		Arguments string `json:"arguments"`
		Result    string `json:"result"`
		Bytes     int    `json:"bytes"` // the whole result's length
		IsError   bool   `json:"is_error,omitempty"`
		Evidence  string `json:"evidence,omitempty"`
		TookMS    int64  `json:"took_ms"`
	}
	// EvidenceAdded is a new record of the session's ledger.
	EvidenceAdded struct {
		Turn   int             `json:"turn"`
		Record evidence.Record `json:"record"`
	}
)

func (ToolStarted) EventType() string   { return "tool_started" }
func (ToolFinished) EventType() string  { return "tool_finished" }
func (EvidenceAdded) EventType() string { return "evidence_added" }

// maxEventResult is how much of a result an event carries.
const maxEventResult = 2 << 10

// toolsFor prepares a turn's request for native tools: the tools, and
// the citation rules in the system prompt. nil when the turn has none.
func (t *Turn) toolsFor(req *providers.Request) *toolTurn {
	if t.spec.Tools || t.spec.System != "" { // the XML protocol's steps; anonymous turns (a ranking) cite nothing
		return nil
	}
	box := t.engine.NativeTools(t.spec.Agent)
	if box == nil {
		return nil
	}
	limit := t.engine.Config.Tools.PerTurn()
	req.Tools, req.ServerTools = box.Specs(), boundSearches(box.ServerTools, limit)
	req.System = strings.TrimSpace(req.System + "\n\n" + evidence.Instruction)
	return &toolTurn{box: box, limit: limit}
}

// streamTools streams the turn, running the tools the model calls between
// its steps. It returns the last step's result and error and what the
// earlier steps consumed; req and streamed are left as the last step's.
func (t *Turn) streamTools(ctx context.Context, req *providers.Request, tt *toolTurn, text *strings.Builder, streamed *providers.Streamed) (providers.Result, providers.Usage, error) {
	var prior providers.Usage
	if r := t.spec.resumed; r != nil {
		prior = r.prior // what the turn it goes on from consumed before its process ended
	}
	for {
		start := text.Len()
		res, err := t.stream(ctx, *req, text, streamed)
		if err == nil && tt != nil {
			t.recordSources(res.Sources)
		}
		if tt == nil || err != nil || len(res.ToolCalls) == 0 || tt.capped {
			if err == nil && tt != nil && tt.capped && len(res.ToolCalls) > 0 && strings.TrimSpace(text.String()) == "" {
				err = &providers.Error{Provider: t.spec.Agent.Provider.Name(), Kind: providers.KindEmpty,
					Message: fmt.Sprintf("kept calling tools after its limit of %d calls and gave no answer", tt.limit)}
			}
			return res, prior, err
		}
		prior = prior.Add(providers.Charge(*req, res, *streamed, nil).Add(res.Retried))
		*streamed = providers.Streamed{}
		for i := range res.ToolCalls { // a vendor that gives no id gets one, the same in the call and its result
			if res.ToolCalls[i].ID == "" {
				res.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d", t.entry.Turn, tt.used+i+1)
			}
		}
		var resume func(providers.ToolCall) string
		if t.spec.last && len(res.ToolCalls) == 1 { // durable: nothing else of the exchange waits on it
			resume = t.toolTurnState(req.Messages, providers.Message{Role: providers.RoleAssistant, Content: text.String()[start:],
				ToolCalls: res.ToolCalls, Replay: res.Replay}, tt, prior)
		}
		results := t.runCalls(ctx, tt, res.ToolCalls, resume)
		if tt.waitErr != nil { // prior holds this step: nothing else is charged
			return providers.Result{}, prior, tt.waitErr
		}
		req.Messages = append(req.Messages,
			providers.Message{Role: providers.RoleAssistant, Content: text.String()[start:], ToolCalls: res.ToolCalls, Replay: res.Replay},
			providers.Message{Role: providers.RoleTool, ToolResults: results})
		if tt.used >= tt.limit {
			tt.capped = true
			req.Messages = append(req.Messages, providers.Message{Role: providers.RoleUser,
				Content: fmt.Sprintf("[%s]: You have used all %d tool calls of this turn. Answer now with what you have, without calling a tool.", HostName, tt.limit)})
			t.engine.AddEntry(transcript.Entry{Kind: transcript.KindNote, Speaker: transcript.SpeakerSystem, Round: t.spec.Round,
				Text: fmt.Sprintf("%s reached the limit of %d tool calls in turn %d and was asked to answer now.", t.spec.Agent.Label(), tt.limit, t.entry.Turn)})
		}
		if text.Len() > 0 && !strings.HasSuffix(text.String(), "\n\n") {
			// The steps' texts are paragraphs apart, in the entry and on
			// every screen that streamed them.
			text.WriteString("\n\n")
			t.engine.Emit(TextDelta{Turn: t.entry.Turn, Agent: t.spec.Agent.Name, Text: "\n\n"})
		}
		if ctx.Err() != nil {
			return res, prior, ctx.Err()
		}
	}
}

// runCalls runs one step's calls in parallel (those past the turn's or
// the exchange's limit are refused), then records them in call order, so
// evidence ids follow the order the model asked in, and returns their
// results in that order.
func (t *Turn) runCalls(ctx context.Context, tt *toolTurn, calls []providers.ToolCall, resume func(providers.ToolCall) string) []providers.ToolResult {
	granted := t.engine.takeCalls(min(len(calls), tt.limit-tt.used))
	tt.used += len(calls)
	ran := make([]toolbox.Result, len(calls))
	InParallel(len(calls), func(i int) {
		call := calls[i]
		t.engine.Emit(ToolStarted{Turn: t.entry.Turn, Agent: t.spec.Agent.Name, CallID: call.ID, Tool: call.Name, Arguments: sanitize.Clip(call.Arguments, maxEventResult)})
		if i < granted {
			ran[i] = tt.box.RunWith(ctx, call, t.engine.approveTool(t.spec.Agent, resume, tt))
			return
		}
		ran[i] = toolbox.Result{Call: call, IsError: true,
			Text: fmt.Sprintf("refused: the limit of tool calls (%d a turn, tools.max_tool_calls; or the exchange's, tools.max_tool_calls_per_exchange) is reached; answer with what you have", tt.limit)}
	})
	if tt.waitErr != nil {
		return nil // the call waits at its saved point: not refused, not run, nothing to record
	}
	out := make([]providers.ToolResult, len(calls))
	for i, res := range ran {
		out[i] = t.record(res)
	}
	return out
}

// record makes a finished call evidence (when it succeeded), saves it as
// a tool_call entry, announces its end and returns what the model gets.
func (t *Turn) record(res toolbox.Result) providers.ToolResult {
	e, a, call := t.engine, t.spec.Agent, res.Call
	content, tc := res.Text, transcript.ToolCall{Tool: call.Name, Parameters: parameters(call.Arguments), Result: res.Text}
	var records []evidence.Record
	if res.IsError {
		tc.Error = res.Text
	} else {
		rec, added := e.tooling.ledger.Reuse(evidence.Record{Kind: res.Source.Kind, Source: res.Source.Ref, Title: res.Source.Title,
			Tool: call.Name, Agent: a.Name, Turn: t.entry.Turn, Text: res.Text})
		records = []evidence.Record{rec}
		content = evidence.Quote(rec, res.Text)
		if added { // a page read again keeps its id and is listed once
			e.Emit(EvidenceAdded{Turn: t.entry.Turn, Record: rec})
		}
	}
	e.AddEntry(transcript.Entry{Kind: transcript.KindToolCall, Speaker: a.Name, Display: a.Label(), Provider: a.Provider.Name(), Model: a.Model,
		Round: t.spec.Round, Prompt: t.spec.Prompt, ToolCalls: []transcript.ToolCall{tc}, Evidence: records})
	fin := ToolFinished{Turn: t.entry.Turn, Agent: a.Name, CallID: call.ID, Tool: call.Name, Arguments: sanitize.Clip(call.Arguments, maxEventResult),
		Result: sanitize.Clip(res.Text, maxEventResult), Bytes: len(res.Text), IsError: res.IsError, TookMS: res.Took.Milliseconds()}
	if len(records) > 0 {
		fin.Evidence = records[0].ID
	}
	e.Emit(fin)
	return providers.ToolResult{CallID: call.ID, Name: call.Name, Content: content, IsError: res.IsError}
}

// parameters are a call's arguments in the export shape (strings by
// name); arguments that are not a JSON object are kept whole as "raw".
func parameters(raw string) map[string]string {
	args, err := toolbox.Arguments(raw)
	if err != nil {
		return map[string]string{"raw": sanitize.Clip(raw, maxEventResult)}
	}
	out := make(map[string]string, len(args))
	for k, v := range args {
		if s, ok := v.(string); ok {
			out[k] = sanitize.Clip(s, maxEventResult)
			continue
		}
		b, _ := json.Marshal(v)
		out[k] = sanitize.Clip(string(b), maxEventResult)
	}
	return out
}

// toolResultTokens is the worst case of one result in a later prompt (two
// bytes a token, as providers.EstimatePromptTokens counts).
const toolResultTokens = toolbox.MaxResultBytes/2 + 256

// worstTurnCost is a turn's worst case: a plain call's (WorstCost), or
// with native tools every step the call limit allows — limit steps of one
// call each and the answer-now step, each prompt carrying every earlier
// step's output and results. With server tools (web search) a step may be
// paused by the vendor and continued up to providers.MaxServerToolPauses
// times, each continuation a request carrying the paused output, writing
// up to max_tokens more and running its own searches.
func worstTurnCost(c *config.Config, model string, req providers.Request, tt *toolTurn, at time.Time) (float64, bool) {
	if tt == nil {
		return worstCost(c, model, req, at)
	}
	p0, out, n := providers.EstimatePromptTokens(req), req.MaxTokens, tt.limit
	segments := 1
	if len(req.ServerTools) > 0 {
		segments += providers.MaxServerToolPauses
	}
	input := 0
	for k := 0; k <= n; k++ {
		for j := 0; j < segments; j++ {
			input += p0 + k*(segments*out+toolResultTokens) + j*out
		}
	}
	u := providers.Usage{InputTokens: input, OutputTokens: (n + 1) * segments * out}
	plain, priced := c.CostAt(model, u, at)
	if !priced {
		return 0, false
	}
	u.CacheWriteTokens = u.InputTokens
	written, _ := c.CostAt(model, u, at)
	// Every request may run its searches (each bounded by max_uses) and
	// pay their fees.
	searches := 0
	for _, st := range req.ServerTools {
		searches += st.MaxUses
	}
	fees := float64((n+1)*segments) * c.ModelInfo(model).SearchCost(searches)
	return max(plain, written) + fees, true
}

// boundSearches gives each server-side search the turn's call limit as
// its max_uses, so a turn's searches, and their fees, are bounded.
func boundSearches(tools []providers.ServerTool, limit int) []providers.ServerTool {
	out := make([]providers.ServerTool, len(tools))
	for i, st := range tools {
		if st.MaxUses <= 0 || st.MaxUses > limit {
			st.MaxUses = max(limit, 1)
		}
		out[i] = st
	}
	return out
}

// Line is the call in one line, as every door shows it: the tool, its
// arguments, and the evidence id it gave or its error, e.g.
//
//	fetch_url url=http://example.org/report → E1 (812 B, 35 ms)
//	fetch_url url=http://10.0.0.1/ → error: refused: 10.0.0.1 is a private address (…)
//
// Unsanitised: a door cleans it for its screen.
func (ev ToolFinished) Line() string {
	var b strings.Builder
	b.WriteString(ev.Tool)
	if args, err := toolbox.Arguments(ev.Arguments); err == nil {
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			v, ok := args[k].(string)
			if !ok {
				raw, _ := json.Marshal(args[k])
				v = string(raw)
			}
			fmt.Fprintf(&b, " %s=%s", k, sanitize.Clip(strings.Join(strings.Fields(v), " "), 120))
		}
	} else {
		b.WriteString(" " + sanitize.Clip(strings.Join(strings.Fields(ev.Arguments), " "), 120))
	}
	if ev.IsError {
		return b.String() + " → " + sanitize.Clip(strings.Join(strings.Fields(ev.Result), " "), 200)
	}
	fmt.Fprintf(&b, " → %s (%s, %d ms)", ev.Evidence, sizeOf(ev.Bytes), ev.TookMS)
	return b.String()
}

// sizeOf is a byte count for people.
func sizeOf(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}
