package open_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// A turn Anthropic pauses (stop_reason pause_turn, a long server-side
// search) is continued as Anthropic's server-tool reference says: the
// same request again with the paused response sent back as-is as the
// assistant's content (its server_tool_use and web_search_tool_result
// blocks and its text), no new user message. The answer streams on as one;
// usage, searches and sources add up.
func TestAnthropicPauseTurnIsContinued(t *testing.T) {
	v := vendorNamed("anthropic")
	src := []providers.Source{{URL: "https://go.dev/doc/", Title: "Go", CitedText: "Go is an open source programming language"}}
	srv := v.fake(t, providertest.Sequence(
		providertest.Reply{Text: "Searching: Go is an open source programming language.", Sources: src, SearchCalls: 1, FinishReason: "pause_turn",
			Usage: providers.Usage{InputTokens: 100, OutputTokens: 10}},
		providertest.Reply{Text: " Done.", Usage: providers.Usage{InputTokens: 300, OutputTokens: 5}},
	))
	p, _ := openFake(t, v, srv, "good-key")
	req := simpleRequest(v.model)
	req.ServerTools = []providers.ServerTool{{Kind: providers.ServerToolWebSearch, MaxUses: 2}}
	o := run(t, p, context.Background(), req)
	if o.err != nil {
		t.Fatalf("err = %v", o.err)
	}
	if o.text() != "Searching: Go is an open source programming language. Done." || o.res.FinishReason != "end_turn" {
		t.Errorf("text %q, finish %q", o.text(), o.res.FinishReason)
	}
	if u := o.res.Usage; u.InputTokens != 400 || u.OutputTokens != 15 || o.res.SearchCalls != 1 || len(o.res.Sources) != 1 {
		t.Errorf("usage %+v, searches %d, sources %+v", u, o.res.SearchCalls, o.res.Sources)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first, second := reqs[0].JSON["messages"].([]any), reqs[1].JSON["messages"].([]any)
	if len(second) != len(first)+1 {
		t.Fatalf("the continuation sent %d messages after %d", len(second), len(first))
	}
	last, _ := json.Marshal(second[len(second)-1])
	for _, want := range []string{`"role":"assistant"`, `"type":"server_tool_use"`, `"id":"srvtoolu_fake_1"`, `"type":"web_search_tool_result"`,
		`"tool_use_id":"srvtoolu_fake_1"`, `"encrypted_content":"EqgfCioIARgBIiQ"`, `"text":"Searching: Go is an open source programming language."`} {
		if !strings.Contains(string(last), want) {
			t.Errorf("the paused content went back without %s: %s", want, last)
		}
	}
	if first, _ := json.Marshal(reqs[0].JSON["tools"]); string(first) != mustJSON(reqs[1].JSON["tools"]) {
		t.Errorf("the continuation changed the tools: %s", mustJSON(reqs[1].JSON["tools"]))
	}
}

// A turn that keeps pausing is continued at most twice, then ends with
// what it has (no error: pause_turn is not a failure).
func TestAnthropicPauseTurnIsBounded(t *testing.T) {
	v := vendorNamed("anthropic")
	srv := v.fake(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "more", FinishReason: "pause_turn", SearchCalls: 1, Usage: providers.Usage{InputTokens: 10, OutputTokens: 1}}
	})
	p, _ := openFake(t, v, srv, "good-key")
	req := simpleRequest(v.model)
	req.ServerTools = []providers.ServerTool{{Kind: providers.ServerToolWebSearch}}
	o := run(t, p, context.Background(), req)
	if o.err != nil || len(srv.Requests()) != 3 || o.text() != "moremoremore" || o.res.SearchCalls != 3 || o.res.Usage.InputTokens != 30 {
		t.Errorf("err %v, %d requests, text %q, searches %d, usage %+v", o.err, len(srv.Requests()), o.text(), o.res.SearchCalls, o.res.Usage)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
