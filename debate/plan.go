package debate

import (
	"context"
	"errors"

	"github.com/parleyhq/parley/debate/transcript"
)

// Plan is what one line of a mode asks of the session, as a value the mode
// builds and the engine carries out (Session.Carry): whom it names, what is
// kept first, then who answers and from which view of the history. The
// mode decides (whom a line addresses, its instructions, its notes); the
// engine refuses, keeps, builds the prompts and runs the round in one
// place, in the order every mode relies on, so a line's path runs mode →
// engine and does not come back to the mode until the round is over.
type Plan struct {
	// Mentioned are the agents the line names (mention's @names): one that
	// does not sit on its own provider's key refuses the line.
	Mentioned []string
	// Accepted, when set, runs once the plan has passed every refusal and
	// before anything is kept: the mode's own bookkeeping of a line it
	// took (mention: whom @all's note named, whose panels show).
	Accepted func()
	// Notes are kept first, in order (mention's note of whom @all skips).
	Notes []transcript.Entry
	// Title names a session that has no title yet ("" leaves it).
	Title string
	// Named announces a named ask typed in another mode, with its note,
	// before the question it explains.
	Named NamedAskStarted
	// Line is the host's line, kept after the notes: the question, or a
	// note when no one is asked (none when its Text is empty). A question
	// without Turns is refused, with the seating line (AllLine) when @all
	// found nobody to ask.
	Line transcript.Entry
	// Turns are the answers asked for.
	Turns []PlannedTurn
}

// PlannedTurn is one agent's answer in a Plan: the turn as a TurnSpec
// without its Messages, and the view of the history it is sent.
type PlannedTurn struct {
	Spec TurnSpec
	View Prompt
}

// Carry carries out a plan in four steps, each done for the whole plan
// before the next: refuse (a refused line keeps nothing), keep (the notes,
// the title, the named ask and the line, in that order), prompt (every
// turn's prompt is built before any turn takes its place: a compaction
// appends a summary, which must come before the round) and run (every turn
// takes its place in the plan's order and they all run in parallel, so the
// round takes the time of its slowest agent; a plan is its exchange's
// whole work, so a plan of one turn marks that turn its exchange's last: a
// tool approval it waits for is durable). It returns the refusal, or
// the round's outcome: the context's error if it was cancelled, else every turn's
// error joined (nil when all answered).
func (e *Engine) Carry(ctx context.Context, p Plan) error {
	if err := e.refusePlan(p); err != nil {
		return err
	}
	if p.Accepted != nil {
		p.Accepted()
	}
	e.keepPlan(p)
	specs := e.promptsOf(ctx, p.Turns)
	return roundError(ctx, e.runRound(ctx, specs))
}

// refusePlan refuses a plan before anything of it is kept or sent, in
// this order: a named agent without its key, a question nobody is asked,
// an agent without a price while a cap is set (refuseUnpriced).
func (e *Engine) refusePlan(p Plan) error {
	if err := e.namedWithoutKey(p.Mentioned); err != nil {
		return err
	}
	if p.Line.Kind == transcript.KindUser && len(p.Turns) == 0 {
		if line := e.AllLine(); line != "" {
			return errors.New(line)
		}
		return errors.New("the line asks no agent")
	}
	agents := make([]*Agent, len(p.Turns))
	for i, t := range p.Turns {
		agents[i] = t.Spec.Agent
	}
	return e.refuseUnpriced(agents)
}
