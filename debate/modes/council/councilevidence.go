package council

import "github.com/parleyhq/parley/debate/verdict"

// evidencePolicy is the council's: modes.council.evidence, else optional
// when a member calls tools (its answers' citations are then checked).
func (c *Council) evidencePolicy() string {
	if p := c.engine.Configuration().Modes.Council.Evidence; p != "" {
		return p
	}
	for _, a := range c.members {
		if c.engine.NativeTools(a) != nil {
			return verdict.EvidenceOptional
		}
	}
	return ""
}

// cite has the core check the [E2] ids each valid answer cites; under
// evidence: required an answer without a valid one is marked unsupported.
func (c *Council) cite(answers []verdict.CouncilAnswer) {
	policy := c.evidencePolicy()
	if policy == "" {
		return
	}
	members := make([]string, len(c.members))
	for i, a := range c.members {
		members[i] = a.Name
	}
	for i := range answers {
		if !answers[i].Valid() {
			continue
		}
		answers[i].Citations = c.engine.CheckCitations(c.engine.SearchCitations(answers[i].Turn), answers[i].Text, members)
		if policy == verdict.EvidenceRequired {
			answers[i].Unsupported = verdict.Unsupported(answers[i].Citations)
		}
	}
}
