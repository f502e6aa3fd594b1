package debatetest

import (
	"strings"

	"github.com/parleyhq/parley/providers/providertest"
)

// CouncilStageOf tells a council request's stage from its system prompt:
// 2 a ranking (the impartial judge), 3 the chairman, else 1 an answer.
func CouncilStageOf(r providertest.Request) int {
	switch {
	case strings.Contains(r.System, "impartial judge"):
		return 2
	case strings.Contains(r.System, "chair Parley's council"):
		return 3
	}
	return 1
}
