package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/modes/mention"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
)

// addTools registers every tool with its input and output schemas. The
// agents and MAGI presets are enums of the input schemas and are listed in
// the descriptions, so a client knows them before it calls.
func (s *Server) addTools() {
	agents := s.opts.Config.AgentNames()
	presets := slices.Sorted(maps.Keys(config.MagiPresets))
	known := " Agents: " + strings.Join(agents, ", ") + "."
	s.schemas = map[string]*jsonschema.Schema{
		"ask":              inputSchema[AskInput](map[string][]string{"agents": append(slices.Clone(agents), "all")}),
		debate.ModeMagi:    inputSchema[MagiInput](map[string][]string{"preset": presets}),
		debate.ModeCouncil: inputSchema[CouncilInput](map[string][]string{"members": agents, "chairman": agents}),
		"debate_start":     inputSchema[DebateStartInput](nil),
		"debate_step":      inputSchema[DebateStepInput](nil),
	}
	mcp.AddTool(s.srv, &mcp.Tool{Name: "ask", Title: "Ask agents", InputSchema: s.schemas["ask"],
		Description: "Ask one or more agents once (mention routing: @name, several @names, or @all). Returns each answer with its agent, model, tokens and cost." + known}, s.ask)
	mcp.AddTool(s.srv, &mcp.Tool{Name: debate.ModeMagi, Title: "MAGI council vote", InputSchema: s.schemas[debate.ModeMagi],
		Description: "Put a yes/no question to the MAGI council: three members vote over three rounds (independent, deliberation, final). Returns the verdict, every round's votes, vote changes and cost: the same document as parley magi --json. Presets: " + strings.Join(presets, ", ") + "."}, s.magi)
	mcp.AddTool(s.srv, &mcp.Tool{Name: debate.ModeCouncil, Title: "Council with anonymous peer ranking", InputSchema: s.schemas[debate.ModeCouncil],
		Description: "Members answer, rank each other's answers anonymously, and a chairman writes the final answer. Returns the stage-1 answers, the rankings and aggregate, and the chairman's answer (or the top-ranked answer marked as the fallback)." + known}, s.council)
	mcp.AddTool(s.srv, &mcp.Tool{Name: "debate_start", Title: "Start an alternating debate", InputSchema: s.schemas["debate_start"],
		Description: "Start a two-agent alternating debate: the first agent answers the instruction, then the second answers seeing the first's answer. It becomes this client's active debate. Returns the HTTP API's turn object."}, s.debateStart)
	mcp.AddTool(s.srv, &mcp.Tool{Name: "debate_step", Title: "Next step of the debate", InputSchema: s.schemas["debate_step"],
		Description: "One step of this client's active debate (or session_id's): exactly one agent answers, in turn, seeing the other's latest answer. Returns the HTTP API's turn object."}, s.debateStep)
	s.schemas["checkpoint"] = inputSchema[CheckpointInput](map[string][]string{"action": {"continue", "note", "drop", "swap", "approve", "deny", "stop"}})
	mcp.AddTool(s.srv, &mcp.Tool{Name: "checkpoint", Title: "Answer a paused run", InputSchema: s.schemas["checkpoint"],
		Description: "Answer the checkpoint a paused magi or council result named (paused.session_id, one of paused.point.choices) and go on with the run: to its end (the outcome is the text), or to its next checkpoint (paused again). For clients that do not answer elicitation/create."}, s.checkpointTool)
	s.schemas["sessions_list"] = inputSchema[SessionsListInput](nil)
	s.schemas["session_get"] = inputSchema[SessionGetInput](nil)
	mcp.AddTool(s.srv, &mcp.Tool{Name: "sessions_list", Title: "Saved sessions", InputSchema: s.schemas["sessions_list"],
		Description: "List saved sessions, most recently active first, a page at a time (next_cursor).", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.sessionsList)
	mcp.AddTool(s.srv, &mcp.Tool{Name: "session_get", Title: "One saved session", InputSchema: s.schemas["session_get"],
		Description: "A saved session's metadata and entries in turn order, a page at a time (after/limit, next_after).", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.sessionGet)
	s.srv.AddReceivingMiddleware(s.plainErrors, s.cliArgs)
}

// --- ask ----------------------------------------------------------------------

// AskInput is the ask tool's arguments.
type AskInput struct {
	Question string   `json:"question" jsonschema:"the question; it may address agents itself with @name or @all"`
	Agents   []string `json:"agents,omitempty" jsonschema:"agent names to ask; default: the question's @mentions, else @all"`
	MaxCost  *float64 `json:"max_cost,omitempty" jsonschema:"cost cap in USD for this call (default: the server's)"`
	// SessionID goes on in a saved session, one the console, ask, serve
	// or another client may share: its turns are the prompt's history.
	SessionID string `json:"session_id,omitempty" jsonschema:"a saved session to go on (a unique prefix is enough): its turns, whoever added them, are the history the agents read; default: a new session"`
}

// Answer is one agent's answer.
type Answer struct {
	Agent     string  `json:"agent"`
	Display   string  `json:"display"`
	Provider  string  `json:"provider"`
	Model     string  `json:"model"`
	Text      string  `json:"text"`
	Status    string  `json:"status" jsonschema:"complete, partial, cancelled or error"`
	Error     string  `json:"error,omitempty"`
	TokensIn  int     `json:"tokens_in"`
	TokensOut int     `json:"tokens_out"`
	Cost      float64 `json:"cost_usd"`
}

// AskOutput is the ask tool's result.
type AskOutput struct {
	SessionID string   `json:"session_id"`
	Answers   []Answer `json:"answers" jsonschema:"in configuration order"`
	TokensIn  int      `json:"tokens_in"`
	TokensOut int      `json:"tokens_out"`
	Cost      float64  `json:"cost_usd"`
	Cancelled bool     `json:"cancelled"`
	Notes     []string `json:"notes" jsonschema:"what Parley said of the run, e.g. whom @all skipped for want of a key"`
	// Ledger is the session's evidence: what members' tools returned (serve.tools), by id, without the text.
	Ledger []evidence.Record `json:"ledger,omitempty" jsonschema:"the session's evidence records (E1, E2, …) that answers and votes cite: source, title, tool, member, digest"`
}

func (s *Server) ask(ctx context.Context, req *mcp.CallToolRequest, in AskInput) (*mcp.CallToolResult, AskOutput, error) {
	line, err := s.addressed(in.Question, in.Agents)
	if err != nil {
		return nil, AskOutput{}, err
	}
	r, release, err := s.askRun(ctx, in)
	if err != nil {
		return nil, AskOutput{}, err
	}
	defer func() { r.close(); release() }() // saved before another call may load it
	var turns finishedTurns
	r.subscribe(turns.sink)
	done, res, err := runFor[debate.ExchangeFinished](ctx, req, r, headless.Conversation, "", line)
	if err != nil {
		return nil, AskOutput{}, err
	}
	out := AskOutput{SessionID: r.eng.Info().ID, Answers: []Answer{}, Cancelled: ctx.Err() != nil, Notes: turns.systemNotes(), Ledger: r.eng.Evidence().Listing()}
	for _, en := range turns.sorted() {
		out.Answers = append(out.Answers, answerOf(en))
	}
	if len(out.Answers) == 0 && done.Err != "" {
		return nil, out, errors.New(done.Err)
	}
	out.TokensIn, out.TokensOut, out.Cost = done.Usage.InputTokens, done.Usage.OutputTokens, done.Cost
	// Every agent asked failed: a tool error, not an answer.
	res.IsError = res.IsError || (len(out.Answers) > 0 && !out.Cancelled && !slices.ContainsFunc(out.Answers, func(a Answer) bool { return a.Status != string(transcript.StatusError) }))
	return res, out, nil
}

// askRun is the ask call's engine: a new session titled after the
// question, or the saved session_id, held by this server until the run's
// end (and across processes by the session's lease while it answers);
// release ends the hold, after the run is closed.
func (s *Server) askRun(ctx context.Context, in AskInput) (r *run, release func(), err error) {
	if in.SessionID == "" {
		r, err := s.newRun(debate.ModeMention, magiChoice{}, in.MaxCost)
		if err == nil {
			r.eng.SetTitle(strings.TrimSpace(in.Question), "")
		}
		return r, func() {}, err
	}
	id, err := s.opts.Store.Resolve(ctx, in.SessionID)
	if err != nil {
		return nil, nil, sessionErr(in.SessionID, err)
	}
	if err := s.claim(id); err != nil {
		return nil, nil, err
	}
	if r, err = s.loadRun(ctx, id, debate.ModeMention, in.MaxCost); err != nil {
		s.release(id)
		return nil, nil, err
	}
	return r, func() { s.release(id) }, nil
}

// mentionLine is the line the mention mode runs: the agents named, or the
// question's own mentions, else @all.
func mentionLine(question string, agents []string) (string, error) {
	q := strings.TrimSpace(question)
	if q == "" {
		return "", errors.New("question: required")
	}
	if len(agents) > 0 {
		var b strings.Builder
		for _, a := range agents {
			a = strings.TrimPrefix(strings.TrimSpace(a), "@")
			if a == "" || strings.ContainsAny(a, " \t\n@") {
				return "", fmt.Errorf("agents: %q is not an agent name", a)
			}
			b.WriteString("@" + a + " ")
		}
		return b.String() + q, nil
	}
	if slices.ContainsFunc(strings.Fields(q), func(w string) bool { return strings.HasPrefix(w, "@") }) {
		return q, nil
	}
	return "@all " + q, nil
}

// addressed is mentionLine checked against the configured agents before
// any session is made: a refused call creates nothing.
func (s *Server) addressed(question string, agents []string) (string, error) {
	known := s.opts.Config.AgentNames()
	for _, a := range agents {
		name := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(a), "@"))
		if name != "all" && !slices.Contains(known, name) {
			return "", fmt.Errorf("agents: unknown value %q; allowed values: %s, all", clean(a), strings.Join(known, ", "))
		}
	}
	line, err := mentionLine(question, agents)
	if err != nil {
		return "", err
	}
	m, err := mention.ParseMentions(line, known)
	if err != nil {
		return "", fmt.Errorf("question: %s", clean(err.Error()))
	}
	if !m.All && len(m.Names) == 0 { // @words that name no agent are plain text
		line = "@all " + line
	}
	return line, nil
}

// finishedTurns collects the agent turns of a run as they finish, and
// Parley's own notes (seating).
type finishedTurns struct {
	mu    sync.Mutex
	turns []transcript.Entry
	notes []string
}

func (f *finishedTurns) sink(ev debate.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch ev := ev.(type) {
	case debate.TurnFinished:
		if ev.Entry.IsAgentTurn() {
			f.turns = append(f.turns, ev.Entry)
		}
	case debate.EntryAdded:
		if en := ev.Entry; en.IsStatusNote() {
			f.notes = append(f.notes, clean(en.Text))
		}
	}
}

func (f *finishedTurns) systemNotes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string{}, f.notes...)
}

// sorted is the turns in history order (configuration order for one round).
func (f *finishedTurns) sorted() []transcript.Entry {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.turns)
	slices.SortFunc(out, func(a, b transcript.Entry) int { return a.Turn - b.Turn })
	return out
}

func answerOf(en transcript.Entry) Answer {
	return Answer{Agent: en.Speaker, Display: en.Display, Provider: en.Provider, Model: en.Model, Text: en.Text,
		Status: string(en.Status), Error: en.Error, TokensIn: en.Usage.InputTokens, TokensOut: en.Usage.OutputTokens, Cost: en.Cost}
}

// --- magi ---------------------------------------------------------------------

// MagiInput is the magi tool's arguments.
type MagiInput struct {
	Question    string   `json:"question" jsonschema:"the question the council votes on (approve, reject or abstain)"`
	Preset      string   `json:"preset,omitempty" jsonschema:"provider rotation under the personas: default, rotate or rotate2"`
	Model       string   `json:"model,omitempty" jsonschema:"one model for all three members (gpt-*, claude-*, gemini-*, or provider/model)"`
	SingleRound bool     `json:"single_round,omitempty" jsonschema:"run round 1 only (independent votes)"`
	MaxCost     *float64 `json:"max_cost,omitempty" jsonschema:"cost cap in USD for this call (default: the server's)"`
	Checkpoint  string   `json:"checkpoint,omitempty" jsonschema:"never (default), each_round or on_split: ask the client's user between rounds through elicitation (the client must declare it)"`
}

// MagiOutput is parley magi --json's document with the session it was saved in.
type MagiOutput struct {
	SessionID string `json:"session_id"`
	Cancelled bool   `json:"cancelled"`
	// Ledger is the session's evidence: what members' tools returned (serve.tools), by id, without the text.
	Ledger []evidence.Record `json:"ledger,omitempty" jsonschema:"the session's evidence records (E1, E2, …) that answers and votes cite: source, title, tool, member, digest"`
	// Paused: the run waits for the host (a client that cannot be asked during a call); the document is empty.
	Paused *Paused `json:"paused,omitempty" jsonschema:"set when the run waits at a checkpoint: answer with the checkpoint tool"`
	headless.MagiDocument
}

func (s *Server) magi(ctx context.Context, req *mcp.CallToolRequest, in MagiInput) (*mcp.CallToolResult, MagiOutput, error) {
	q := strings.TrimSpace(in.Question)
	switch {
	case q == "":
		return nil, MagiOutput{}, errors.New("question: required")
	case in.Model != "" && in.Preset != "":
		return nil, MagiOutput{}, errors.New("model and preset cannot be used together: model runs all three members on one model, preset rotates their providers")
	}
	if _, ok := config.MagiPresets[in.Preset]; in.Preset != "" && !ok {
		return nil, MagiOutput{}, fmt.Errorf("preset: unknown preset %q (one of default, rotate, rotate2)", in.Preset)
	}
	r, err := s.newRun(debate.ModeMagi, magiChoice{in.Preset, in.Model}, in.MaxCost)
	if err != nil {
		return nil, MagiOutput{}, err
	}
	defer r.close()
	rounds := verdict.MagiRounds
	if in.SingleRound {
		rounds = 1
	}
	if err := r.eng.Control(ctx, debate.Control{Kind: config.ControlRounds, N: rounds}); err != nil {
		return nil, MagiOutput{}, err
	}
	pause, err := hostFor(r.eng, req, in.Checkpoint, headless.Magi)
	if err != nil {
		return nil, MagiOutput{}, err
	}
	r.eng.SetTitle(q, "")
	r.watch(pause)
	got, res, err := runFor[verdict.MagiDecided](ctx, req, r, headless.Magi, headless.MagiHeader(q, r.eng.Current().Agents()), q)
	if res, pz, ok := r.paused(pause); ok {
		return res, MagiOutput{SessionID: pz.SessionID, Paused: pz}, nil
	}
	if err != nil {
		return nil, MagiOutput{}, err
	}
	return res, MagiOutput{SessionID: r.eng.Info().ID, Cancelled: got.Cancelled, Ledger: r.eng.Evidence().Listing(), MagiDocument: headless.MagiJSON(got.MagiResult)}, nil
}

// --- council ------------------------------------------------------------------

// CouncilInput is the council tool's arguments.
type CouncilInput struct {
	Question string   `json:"question" jsonschema:"the question every member answers"`
	Members  []string `json:"members,omitempty" jsonschema:"agent names of the members, two or more (default: modes.council.members)"`
	Chairman string   `json:"chairman,omitempty" jsonschema:"agent name whose model writes the final answer (default: modes.council.chairman)"`
	MaxCost  *float64 `json:"max_cost,omitempty" jsonschema:"cost cap in USD for this call (default: the server's)"`
	// Checkpoint is as magi's: the council asks after the answers and after the rankings.
	Checkpoint string `json:"checkpoint,omitempty" jsonschema:"never (default), each_round or on_split: ask the client's user after the answers and after the rankings through elicitation (the client must declare it)"`
}

// CouncilOutput is parley council --json's document with the session it was saved in.
type CouncilOutput struct {
	SessionID string `json:"session_id"`
	Cancelled bool   `json:"cancelled"`
	// Ledger is the session's evidence: what members' tools returned (serve.tools), by id, without the text.
	Ledger []evidence.Record `json:"ledger,omitempty" jsonschema:"the session's evidence records (E1, E2, …) that answers and votes cite: source, title, tool, member, digest"`
	// Paused: as magi's.
	Paused *Paused `json:"paused,omitempty" jsonschema:"set when the run waits at a checkpoint: answer with the checkpoint tool"`
	headless.CouncilDocument
}

func (s *Server) council(ctx context.Context, req *mcp.CallToolRequest, in CouncilInput) (*mcp.CallToolResult, CouncilOutput, error) {
	q := strings.TrimSpace(in.Question)
	if q == "" {
		return nil, CouncilOutput{}, errors.New("question: required")
	}
	r, err := s.newRun(debate.ModeCouncil, magiChoice{}, in.MaxCost, cli.CouncilSeats(in.Members, in.Chairman, "members", "chairman"))
	if err != nil {
		return nil, CouncilOutput{}, err
	}
	defer r.close()
	pause, err := hostFor(r.eng, req, in.Checkpoint, headless.Council)
	if err != nil {
		return nil, CouncilOutput{}, err
	}
	r.eng.SetTitle(q, "")
	r.watch(pause)
	got, res, err := runFor[verdict.CouncilDecided](ctx, req, r, headless.Council, headless.CouncilHeader(q, r.eng.Current().Agents()), q)
	if res, pz, ok := r.paused(pause); ok {
		return res, CouncilOutput{SessionID: pz.SessionID, Paused: pz}, nil
	}
	if err != nil {
		return nil, CouncilOutput{}, err
	}
	// A failed chairman leaves the top-ranked answer, marked as the
	// fallback: an outcome the client reads, not a tool error.
	res.IsError = res.IsError && got.Chairman.Fallback == ""
	return res, CouncilOutput{SessionID: r.eng.Info().ID, Cancelled: got.Cancelled, Ledger: r.eng.Evidence().Listing(), CouncilDocument: headless.CouncilJSON(got.CouncilResult)}, nil
}
