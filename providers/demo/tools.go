package demo

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/parleyhq/parley/internal/lazyregexp"

	"github.com/parleyhq/parley/providers"
)

// Native tools offline: a demo agent offered tools (Request.Tools) calls
// one first when its question asks for it — fetch_url on a URL the
// question names, list_file on a question about files (always in MAGI and
// agent mode) — and answers after the results, citing the evidence ids
// they were quoted under. One round of calls a turn, so a demo turn ends.

var (
	urlInText   = lazyregexp.New(`https?://[^\s<>"'\]\)]+`)
	evidenceIDs = lazyregexp.New(`\[(E\d+)\] source:`)
)

// toolStep is the demo's native tool step for req: the text before the
// calls and the calls, or ok false when the turn calls no tool (none
// offered, one round already made, or nothing to look up).
func toolStep(req providers.Request) (text string, calls []providers.ToolCall, ok bool) {
	if len(req.Tools) == 0 || calledThisTurn(req.Messages) {
		return "", nil, false
	}
	question := question(lastUser(req.Messages))
	if u := urlInText.FindString(question); u != "" && offers(req, "fetch_url") {
		args, _ := json.Marshal(map[string]string{"url": strings.TrimRight(u, ".,;:!?")})
		return "Let me read that page first.", []providers.ToolCall{{ID: "call_demo_1", Name: "fetch_url", Arguments: string(args)}}, true
	}
	filesAsked := fileWords().MatchString(question) || req.Meta.Mode == "magi" || req.Meta.Mode == "agent"
	if filesAsked && offers(req, "list_file") {
		return "Let me look at the workspace first.", []providers.ToolCall{{ID: "call_demo_1", Name: "list_file", Arguments: `{"path":"."}`}}, true
	}
	return "", nil, false
}

func offers(req providers.Request, name string) bool {
	return slices.ContainsFunc(req.Tools, func(t providers.ToolSpec) bool { return t.Name == name })
}

// calledThisTurn reports tool results after the latest user message.
func calledThisTurn(msgs []providers.Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		switch msgs[i].Role {
		case providers.RoleTool:
			return true
		case providers.RoleUser:
			return false
		}
	}
	return false
}

// afterTools is the answer once the results came back: the answer to the
// question the turn began with, citing every evidence id the results were
// quoted under (a structured answer's evidence field, when its schema
// has one).
func afterTools(req providers.Request) (string, bool) {
	if !calledThisTurn(req.Messages) {
		return "", false
	}
	var ids []string
	cut := len(req.Messages)
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != providers.RoleUser; i-- {
		cut = i
		for _, r := range req.Messages[i].ToolResults {
			for _, m := range evidenceIDs.FindAllStringSubmatch(r.Content, -1) {
				if !slices.Contains(ids, m[1]) {
					ids = append(ids, m[1])
				}
			}
		}
	}
	slices.Sort(ids)
	base := req
	base.Messages = req.Messages[:cut]
	base.Tools = nil
	answer := Answer(base)
	if len(ids) == 0 {
		return answer, true
	}
	if req.Schema != nil {
		return withEvidence(answer, req.Schema, ids), true
	}
	return answer + "\n\nSources: [" + strings.Join(ids, "], [") + "].", true
}

// withEvidence sets a structured answer's evidence field to ids when its
// schema has one.
func withEvidence(answer string, s *providers.Schema, ids []string) string {
	props, _ := s.JSON["properties"].(map[string]any)
	if _, ok := props["evidence"]; !ok {
		return answer
	}
	var obj map[string]any
	if json.Unmarshal([]byte(answer), &obj) != nil {
		return answer
	}
	obj["evidence"] = ids
	b, err := json.Marshal(obj)
	if err != nil {
		return answer
	}
	return string(b)
}
