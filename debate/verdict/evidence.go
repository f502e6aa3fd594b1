package verdict

import (
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/sanitize"
)

// The core's check of citations: what a vote or an answer cites — its
// "evidence" list and the [E2] ids in its text — is checked here against
// the session's ledger, never by a model, and worded once for every door.

// Evidence policies (modes.magi.evidence, modes.council.evidence).
const (
	EvidenceOptional = "optional" // citations are checked and counted
	EvidenceRequired = "required" // a vote or answer without a valid citation is unsupported
)

// CheckEvidencePolicy validates a mode's evidence setting.
func CheckEvidencePolicy(key, value string) error {
	switch value {
	case "", EvidenceOptional, EvidenceRequired:
		return nil
	}
	return fmt.Errorf("%s is %q; it must be optional or required (or left out)", key, sanitize.Clip(value, 20))
}

// Unsupported is why a vote or answer counts as unsupported under
// evidence: required ("" when it cites valid evidence).
func Unsupported(c evidence.Check) string {
	if c.Supported() {
		return ""
	}
	if len(c.Flags) > 0 {
		return "unsupported: no valid citation (" + strings.Join(c.Flags, "; ") + "; evidence: required)"
	}
	return "unsupported: it cites no evidence (evidence: required)"
}

// evidenceField reads a vote's "evidence" list (strings; anything else
// is ignored: the check flags what does not exist).
func evidenceField(obj map[string]any) []string {
	raw, ok := fieldOf(obj, "evidence")
	if !ok {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		if s, isString := raw.(string); isString && strings.TrimSpace(s) != "" {
			list = []any{s}
		}
	}
	var ids []string
	for _, it := range list {
		if s, ok := it.(string); ok {
			ids = append(ids, s)
		}
	}
	return evidence.Normalise(ids)
}

// VoteCoverage ends a council's outcome sentence with how many of its
// final votes cite evidence, when evidence was in play:
//
//	" · 3 of 3 votes cite evidence"
func VoteCoverage(res *MagiResult) string {
	if res.Evidence == "" || len(res.Rounds) == 0 {
		return ""
	}
	last := res.Rounds[len(res.Rounds)-1]
	cited := 0
	for _, v := range last {
		if v.Citations.Supported() {
			cited++
		}
	}
	return fmt.Sprintf(" · %d of %d %s evidence", cited, len(last), plural(len(last), "vote cites", "votes cite"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// AnswerCoverage ends a council's outcome sentence with how many of its
// members' answers cite evidence, when evidence was in play:
//
//	" · 2 of 3 answers cite evidence"
func AnswerCoverage(res CouncilResult) string {
	if res.Evidence == "" || len(res.Answers) == 0 {
		return ""
	}
	cited := 0
	for _, a := range res.Answers {
		if a.Citations.Supported() {
			cited++
		}
	}
	return fmt.Sprintf(" · %d of %d %s evidence", cited, len(res.Answers), plural(len(res.Answers), "answer cites", "answers cite"))
}
