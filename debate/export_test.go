package debate

import (
	"time"

	"github.com/parleyhq/parley/providers"
)

// What the external tests (package debate_test, which may import the modes
// and debatetest) need of the package's insides.

const (
	MinContextTokens = minContextTokens
	TitleWidth       = titleWidth
)

var (
	OverWindow = overWindow
)

// SetClock makes now the engine's clock.
func (e *Engine) SetClock(now func() time.Time) { e.now = now }

// LoopMessages is loopMessages, for the tool loop's prompt tests.
func (e *Engine) LoopMessages(base []providers.Message, mine []Entry, self string) []providers.Message {
	return e.loopMessages(base, mine, self)
}

// NewTitledEngine is an engine with only a session, for the title tests.
func NewTitledEngine(info SessionInfo) *Engine { return &Engine{info: info} }
