package debate

import (
	"context"

	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// Session is what a mode may do with the session it runs in, and nothing
// more. ModeSpec.New hands a mode its Session instead of the engine, so the
// doors' side of the engine (Submit, Control, Subscribe, the meter, Wait,
// SetMode) stays out of a mode's reach: a mode adds entries, runs turns,
// reads prompts, keeps its state and reports its outcome, and the engine
// carries out the rest. *Engine is the one implementation.
type Session interface {
	// Configuration is the session's configuration (Engine.Config).
	Configuration() *config.Config
	// Info is the session's metadata; State and SetState keep the mode's
	// own values in it (announced as SessionUpdated).
	Info() SessionInfo
	State(key string) string
	SetState(key, value string)
	// SetTitle names the session after its first question or topic.
	SetTitle(question, topic string)
	// Workspace is the folder agent mode reads ("" when none).
	Workspace() string

	// The seats: the session's agents by name, in configuration order,
	// and who @all asks.
	Agent(name string) (*Agent, bool)
	AgentNames() []string
	AgentsOf(names []string) []*Agent
	MustAgents(names ...string) ([]*Agent, error)
	Resolve(names []string) ([]*Agent, error)
	SeatsOf(agents []*Agent) []config.Seat
	AllLine() string
	AllSeated() (asked []*Agent, skipped []config.Seat)

	// The record: entries added (announced as EntryAdded), the history the
	// prompts are built from, and the mode's events and outcome.
	AddEntry(en transcript.Entry) transcript.Entry
	History() *transcript.History
	Emit(ev Event)
	AddOutcome(display, sentence string)
	// CheckCitations checks what an answer cites against the session's
	// evidence ledger.
	CheckCitations(listed []string, text string, members []string) evidence.Check
	// SearchCitations are the ids of the search sources a turn's vendor
	// says its answer cites.
	SearchCitations(turn int) []string

	// Turns: Reserve one per agent (their numbers are taken in order),
	// then Run them, in parallel when they should be; PromptFor is what an
	// agent is sent; a tool loop runs agent mode's steps, NativeTools an
	// agent's native tools.
	Reserve(spec TurnSpec) *Turn
	PromptFor(ctx context.Context, p Prompt) []providers.Message
	MaxSteps() int
	NewToolLoop(spec TurnSpec, maxSteps int, requireComplete bool) *ToolLoop
	NativeTools(a *Agent) *toolbox.Box

	// Carry carries out a plan a mode built for one line (plan.go): what
	// refuses it, what is kept first, then who answers, in parallel, from
	// which view; it returns the refusal or the round's outcome.
	Carry(ctx context.Context, p Plan) error

	// Checkpoint offers the host a point where the run can pause
	// (checkpoints.go): asked false when the run went on without asking.
	Checkpoint(ctx context.Context, p checkpoint.Point) (a checkpoint.Answer, asked bool, err error)
	// RunAhead is how many exchanges of the door's run follow the running
	// one (checkpointrun.go): a point between them is worth offering.
	RunAhead() int
}

// Configuration is the session's configuration, for a mode's Session.
func (e *Engine) Configuration() *config.Config { return e.Config }
