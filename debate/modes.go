package debate

import "github.com/parleyhq/parley/debate/config"

// Mode names, for the commands and doors made for one mode (parley magi,
// MCP's magi tool, the OpenAI door's @agent); everything else reads the
// descriptors.
const (
	ModeMention   = "mention"
	ModeAlternate = "alternate"
	ModeTalk      = "talk"
	ModeMagi      = "magi"
	ModeAgent     = "agent"
	ModeCouncil   = "council"
)

// ModeSpec describes a mode: its configuration's side (config.ModeSpec:
// what it is, its section's rules) and how it is built for a session.
// The core and every door know modes only through it.
type ModeSpec interface {
	config.ModeSpec
	// New builds the mode for a session.
	New(s Session) (Mode, error)
}

// Modes is the modes this engine's program knows.
func (e *Engine) Modes() config.ModeList { return e.Config.ModeList }
