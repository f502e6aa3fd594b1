package demo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
)

func demoTools() []providers.ToolSpec {
	return []providers.ToolSpec{{Name: "list_file"}, {Name: "read_file"}, {Name: "fetch_url"}}
}

// drain streams req from a demo provider to its end.
func drain(t *testing.T, req providers.Request) (string, providers.Result) {
	t.Helper()
	s, err := NewWithPace("demo", 0).Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for s.Next() {
		text.WriteString(s.Delta())
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	return text.String(), s.Result()
}

// A demo agent offered tools calls one, then answers citing the evidence
// its results were quoted under: tools work with no key.
func TestDemoCallsAToolThenCites(t *testing.T) {
	req := providers.Request{Tools: demoTools(), Meta: providers.Meta{Mode: "mention", Purpose: providers.PurposeReply},
		Messages: []providers.Message{{Role: providers.RoleUser, Content: "[Host]: What does http://127.0.0.1:8080/notes.html say about caching?"}}}
	text, res := drain(t, req)
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].Name != "fetch_url" || res.ToolCalls[0].Arguments != `{"url":"http://127.0.0.1:8080/notes.html"}` {
		t.Fatalf("calls = %+v", res.ToolCalls)
	}
	if res.FinishReason != "tool_calls" || providers.FinishError("demo", res, text, 0) != nil {
		t.Errorf("finish %q", res.FinishReason)
	}
	req.Messages = append(req.Messages,
		providers.Message{Role: providers.RoleAssistant, Content: text, ToolCalls: res.ToolCalls},
		providers.Message{Role: providers.RoleTool, ToolResults: []providers.ToolResult{{CallID: res.ToolCalls[0].ID,
			Content: "[E3] source: http://127.0.0.1:8080/notes.html — Notes\n<<<BEGIN E3>>>\nCache the prefix.\n<<<END E3>>>"}}})
	answer, res := drain(t, req)
	if len(res.ToolCalls) != 0 || !strings.Contains(answer, "[E3]") {
		t.Fatalf("second step: calls %+v, answer %q", res.ToolCalls, answer)
	}
	// A question about files lists the workspace; a plain one calls nothing.
	req.Messages = []providers.Message{{Role: providers.RoleUser, Content: "[Host]: Which files hold the config?"}}
	if _, res := drain(t, req); len(res.ToolCalls) != 1 || res.ToolCalls[0].Name != "list_file" {
		t.Errorf("files question: %+v", res.ToolCalls)
	}
	req.Messages = []providers.Message{{Role: providers.RoleUser, Content: "[Host]: Is it sunny?"}}
	if _, res := drain(t, req); len(res.ToolCalls) != 0 {
		t.Errorf("plain question called %+v", res.ToolCalls)
	}
	req.Tools = nil
	req.Messages = []providers.Message{{Role: providers.RoleUser, Content: "[Host]: Which files hold the config?"}}
	if _, res := drain(t, req); len(res.ToolCalls) != 0 {
		t.Errorf("no tools offered, yet called %+v", res.ToolCalls)
	}
}

// A MAGI vote with tools looks first, then its vote's evidence names the ids.
func TestDemoVoteCitesEvidence(t *testing.T) {
	schema := &providers.Schema{Name: "magi_vote", JSON: map[string]any{"type": "object", "properties": map[string]any{
		"vote": map[string]any{"type": "string", "enum": []any{"approve", "reject"}}, "reasoning": map[string]any{"type": "string"},
		"summary": map[string]any{"type": "string"}, "evidence": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}},
		"required": []any{"vote", "reasoning", "summary"}}}
	req := providers.Request{Tools: demoTools(), Schema: schema, Meta: providers.Meta{Mode: "magi", Purpose: providers.PurposeVote},
		Messages: []providers.Message{{Role: providers.RoleUser, Content: "[Host]: Should we ship? See http://127.0.0.1:9/status"}}}
	text, res := drain(t, req)
	if len(res.ToolCalls) != 1 {
		t.Fatalf("no call: %q", text)
	}
	req.Messages = append(req.Messages,
		providers.Message{Role: providers.RoleAssistant, Content: text, ToolCalls: res.ToolCalls},
		providers.Message{Role: providers.RoleTool, ToolResults: []providers.ToolResult{{CallID: "call_demo_1", Content: "[E1] source: http://127.0.0.1:9/status\n<<<BEGIN E1>>>\nall green\n<<<END E1>>>"}}})
	vote, _ := drain(t, req)
	var v struct {
		Vote     string   `json:"vote"`
		Evidence []string `json:"evidence"`
	}
	if err := json.Unmarshal([]byte(vote), &v); err != nil || v.Vote == "" || len(v.Evidence) != 1 || v.Evidence[0] != "E1" {
		t.Fatalf("vote %q (%v)", vote, err)
	}
}
