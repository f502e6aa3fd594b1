package debate

import (
	"slices"

	"github.com/parleyhq/parley/debate/evidence"
)

// CheckCitations checks what an answer cites: the ids listed (a vote's
// "evidence") and those its text cites in brackets, against the ledger;
// each must exist and have been seen by one of members.
func (e *Engine) CheckCitations(listed []string, text string, members []string) evidence.Check {
	ids := evidence.Normalise(listed)
	for _, id := range evidence.Cited(text) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return evidence.Check{}
	}
	return e.Evidence().Check(ids, members)
}
