package debate

import "context"

// Plan is what one line of a mode asks of the session, as a value the mode
// builds and the engine carries out (Session.Carry): what is kept first,
// then who answers and from which view of the history. The mode decides
// (whom a line addresses, what it refuses, its instructions); the engine
// keeps the order every mode relies on in one place, so a line's path runs
// mode → engine instead of the mode driving the engine's helpers one by one.
type Plan struct {
	// Notes are kept first, in order (mention's note of whom @all skips).
	Notes []Entry
	// Title names a session that has no title yet ("" leaves it).
	Title string
	// Named announces a named ask typed in another mode, with its note,
	// before the question it explains (StartNamedAsk).
	Named NamedAskStarted
	// Line is the host's line, kept after the notes: the question, or a
	// note when no one is asked (none when its
	// Text is empty).
	Line Entry
	// Turns are the answers asked for.
	Turns []PlannedTurn
}

// PlannedTurn is one agent's answer in a Plan: the turn as a TurnSpec
// without its Messages, and the view of the history it is sent.
type PlannedTurn struct {
	Spec TurnSpec
	View Prompt
}

// Carry carries out a plan: the notes, the title, the named ask and the
// question are kept in that order; then every turn's prompt is built before
// any turn takes its place (a compaction appends a summary, which must come
// before the round); then every turn takes its place in the plan's order
// and they all run in parallel, an agent with the files tool and no native
// tools reading the workspace through a tool loop first, so the round takes
// the time of its slowest agent. The results are in the plan's order. A
// plan is its exchange's whole work, so a plan of one turn marks that turn
// its exchange's last: a tool approval it waits for is durable.
func (e *Engine) Carry(ctx context.Context, p Plan) []TurnResult {
	for _, n := range p.Notes {
		e.AddEntry(n)
	}
	e.SetTitle(p.Title, "")
	StartNamedAsk(e, p.Named)
	if p.Line.Text != "" {
		e.AddEntry(p.Line)
	}
	specs := make([]TurnSpec, len(p.Turns))
	for i, t := range p.Turns {
		specs[i] = t.Spec
		specs[i].Messages = e.PromptFor(ctx, t.View)
	}
	if len(specs) == 1 {
		specs[0].last = true // the plan is the whole exchange: nothing follows its one turn
	}
	runs := make([]func() (Entry, error), len(specs))
	for i, spec := range specs {
		if spec.Agent.Tools.Files() && e.NativeTools(spec.Agent) == nil {
			loop := e.NewToolLoop(spec, 0, false)
			loop.Reserve()
			runs[i] = func() (Entry, error) { return loop.Run(ctx) }
			continue
		}
		turn := e.Reserve(spec)
		runs[i] = func() (Entry, error) { return turn.Run(ctx) }
	}
	results := make([]TurnResult, len(runs))
	InParallel(len(runs), func(i int) {
		en, err := runs[i]()
		results[i] = TurnResult{Entry: en, Err: err}
	})
	return results
}
