// Package modes lists the modes Parley knows, once: adding a mode is one
// package under debate/modes and one line in All.
package modes

import (
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes/agent"
	"github.com/parleyhq/parley/debate/modes/alternate"
	"github.com/parleyhq/parley/debate/modes/council"
	"github.com/parleyhq/parley/debate/modes/magi"
	"github.com/parleyhq/parley/debate/modes/mention"
	"github.com/parleyhq/parley/debate/modes/talk"
)

// All is every mode, in console-key order (alt+1 is the first); the
// first is where a session starts when nothing names one.
func All() config.ModeList {
	return config.ModeList{
		mention.Spec{},
		alternate.Spec{},
		talk.Spec{},
		magi.Spec{},
		agent.Spec{},
		council.Spec{},
	}
}
