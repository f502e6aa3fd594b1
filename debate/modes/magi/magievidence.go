package magi

import (
	"maps"
	"slices"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// evidencePolicy is the council's: modes.magi.evidence, else optional when
// a member calls tools (its votes' citations are then checked and counted).
func (m *Magi) evidencePolicy() string {
	if p := m.engine.Configuration().Modes.Magi.Evidence; p != "" {
		return p
	}
	for _, a := range m.agents {
		if m.engine.NativeTools(a) != nil {
			return verdict.EvidenceOptional
		}
	}
	return ""
}

// schemaFor is what member a answers in: with tools, the vote also lists
// the evidence ids it rests on.
func (m *Magi) schemaFor(a *debate.Agent) *providers.Schema {
	s := m.schema()
	if m.engine.NativeTools(a) == nil {
		return s
	}
	base, ok := s.JSON["properties"].(map[string]any)
	if !ok {
		return s
	}
	props := maps.Clone(base)
	props["evidence"] = map[string]any{"type": "array", "items": map[string]any{"type": "string"},
		"description": `ids of the evidence records the answer rests on, e.g. ["E2"]; [] when none`}
	json := maps.Clone(s.JSON)
	json["properties"] = props
	if req, ok := json["required"].([]any); ok {
		json["required"] = append(slices.Clone(req), "evidence")
	}
	return &providers.Schema{Name: s.Name, Description: s.Description, JSON: json}
}

// cite has the core check what a valid vote cites; under evidence:
// required a vote with no valid citation is unsupported, counted as invalid.
func (m *Magi) cite(v *verdict.MagiVote) {
	policy := m.evidencePolicy()
	if policy == "" {
		return
	}
	members := make([]string, len(m.agents))
	for i, a := range m.agents {
		members[i] = a.Name
	}
	// The sources its own search cited count as cited (searchevidence.go).
	listed := append(slices.Clone(v.Evidence), m.engine.SearchCitations(v.Turn)...)
	v.Citations = m.engine.CheckCitations(listed, v.Reasoning+"\n"+v.Summary, members)
	if policy == verdict.EvidenceRequired {
		if why := verdict.Unsupported(v.Citations); why != "" {
			v.Valid, v.Error = false, why
			v.Vote = verdict.VoteInvalid
		}
	}
}
