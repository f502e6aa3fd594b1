package debate

import (
	"context"
	"time"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// What the external tests (package debate_test, which may import the modes
// and debatetest) need of the package's insides.

const (
	MinContextTokens = config.MinContextTokens
	TitleWidth       = titleWidth
	InterruptWindow  = interruptWindow
)

// StepLimitError is stepLimitError, for the tool loop's tests.
type StepLimitError = stepLimitError

var (
	OverWindow = overWindow
)

// SetClock makes now the engine's clock.
func (e *Engine) SetClock(now func() time.Time) { e.now = now }

// LoopMessages is loopMessages, for the tool loop's prompt tests.
func (e *Engine) LoopMessages(base []providers.Message, mine []transcript.Entry, self string) []providers.Message {
	return e.loopMessages(base, mine, self)
}

// NewTitledEngine is an engine with only a session, for the title tests.
func NewTitledEngine(info SessionInfo) *Engine { return &Engine{info: info} }

// RunToolLoop is runToolLoop, for the tool loop's tests.
func (e *Engine) RunToolLoop(ctx context.Context, spec TurnSpec, maxSteps int) (transcript.Entry, error) {
	return e.runToolLoop(ctx, spec, maxSteps)
}

// Entry is the turn's entry as it stands.
func (t *Turn) Entry() transcript.Entry { return t.entry }

// Finish settles a reserved turn without a model call, for the tests that
// lay out a history turn by turn. It emits TurnFinished.
func (t *Turn) Finish(en transcript.Entry) transcript.Entry {
	en.Turn = t.entry.Turn
	if en.Finished.IsZero() {
		en.Finished = t.engine.now()
	}
	en = t.engine.settle(en)
	t.entry = en
	t.engine.Emit(TurnFinished{Entry: en})
	return en
}

// Compact is compact, for the compaction tests.
func (e *Engine) Compact(ctx context.Context, b config.Budget) { e.compact(ctx, b) }

// PendingCheckpoint is what a checkpoint's wait saves, for its size tests.
type PendingCheckpoint = pendingCheckpoint
