package open_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// Server-side web search: each vendor's request shape, its sources
// normalised into Result.Sources and its searches counted for the fee.

func searchSources() []providers.Source {
	return []providers.Source{
		{URL: "https://go.dev/doc/", Title: "Documentation - The Go Programming Language", CitedText: "Go is an open source programming language"},
		{URL: "https://charm.sh/", Title: "Charm", CitedText: "We make the command line glamorous"},
	}
}

const searchAnswer = "Both hold: Go is an open source programming language, and Charm says We make the command line glamorous."

// searchVendors are the adapters with a server-side search, each with the
// request shape its API reference gives.
var searchVendors = map[string]func(t *testing.T, body map[string]any){
	// platform.openai.com/docs/guides/tools-web-search: tools: [{"type":
	// "web_search"}]; max_tool_calls bounds the built-in tool calls.
	"openai-responses": func(t *testing.T, body map[string]any) {
		jsonEqual(t, "tools", body["tools"], `[{"type":"function","name":"read_file","description":"Read a file of the workspace",
			"parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},{"type":"web_search"}]`)
		jsonEqual(t, "max_tool_calls", body["max_tool_calls"], `3`)
	},
	// docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool:
	// {"type": "web_search_20250305", "name": "web_search", "max_uses": N}.
	"anthropic": func(t *testing.T, body map[string]any) {
		jsonEqual(t, "tools", body["tools"], `[{"name":"read_file","description":"Read a file of the workspace",
			"input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
			{"type":"web_search_20250305","name":"web_search","max_uses":3}]`)
	},
	// ai.google.dev/gemini-api/docs/google-search: tools: [{"google_search":
	// {}}], which genai writes in the API's lowerCamel JSON, googleSearch.
	"gemini": func(t *testing.T, body map[string]any) {
		jsonEqual(t, "tools", body["tools"], `[{"functionDeclarations":[{"name":"read_file","description":"Read a file of the workspace",
			"parametersJsonSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]},{"googleSearch":{}}]`)
	},
}

func TestWebSearchShapesSourcesAndCount(t *testing.T) {
	for name, check := range searchVendors {
		v := vendorNamed(name)
		srv := v.fake(t, func(providertest.Request) providertest.Reply {
			return providertest.Reply{Text: searchAnswer, Sources: searchSources(), SearchCalls: 2,
				Usage: providers.Usage{InputTokens: 900, OutputTokens: 40}}
		})
		p, _ := openFake(t, v, srv, "good-key")
		req := simpleRequest(v.model)
		req.Tools = []providers.ToolSpec{readFileTool()}
		req.ServerTools = []providers.ServerTool{{Kind: providers.ServerToolWebSearch, MaxUses: 3}}
		o := run(t, p, context.Background(), req)
		if o.err != nil {
			t.Fatalf("%s: err = %v", name, o.err)
		}
		if o.text() != searchAnswer {
			t.Errorf("%s: text = %q", name, o.text())
		}
		if !reflect.DeepEqual(o.res.Sources, searchSources()) {
			t.Errorf("%s: sources = %+v", name, o.res.Sources)
		}
		if o.res.SearchCalls != 2 {
			t.Errorf("%s: search calls = %d, want 2", name, o.res.SearchCalls)
		}
		if u := providers.Charge(req, o.res, providers.Streamed{}, nil); u.SearchCalls != 2 {
			t.Errorf("%s: charged %+v", name, u)
		}
		check(t, srv.Requests()[0].JSON)
	}
}

// A chat-only OpenAI entry still searches: the request goes to the
// Responses API, which has the tool.
func TestOpenAIWebSearchGoesToResponses(t *testing.T) {
	v := vendorNamed("openai") // api: chat
	srv := v.fake(t, func(providertest.Request) providertest.Reply { return providertest.Reply{Text: "ok", SearchCalls: 1} })
	p, _ := openFake(t, v, srv, "good-key")
	req := simpleRequest(v.model)
	req.ServerTools = []providers.ServerTool{{Kind: providers.ServerToolWebSearch}}
	o := run(t, p, context.Background(), req)
	if o.err != nil || o.res.SearchCalls != 1 {
		t.Fatalf("err = %v, searches = %d", o.err, o.res.SearchCalls)
	}
	if path := srv.Requests()[0].Path; path != "/v1/responses" {
		t.Errorf("path = %s", path)
	}
}

// Replay carries what the vendor needs back with the calls: the
// Responses API's reasoning items (encrypted, store false).
func TestReplayGoesBackWithTheCalls(t *testing.T) {
	for name, replay := range map[string]string{
		"openai-responses": "gAAAAB-encrypted-reasoning",
		"anthropic":        "EqQBCkYIBxgCKkDthinking-signature",
		"gemini":           "thought-signature-bytes",
	} {
		v := vendorNamed(name)
		srv := v.fake(t, providertest.Sequence(
			providertest.Reply{ToolCalls: toolCalls()[:1], Replay: replay},
			providertest.Reply{Text: "done"},
		))
		p, _ := openFake(t, v, srv, "good-key")
		req := simpleRequest(v.model)
		req.Tools = []providers.ToolSpec{readFileTool()}
		o := run(t, p, context.Background(), req)
		// Gemini's thought signature rides on its call, the others' state on the answer.
		if o.err != nil || len(o.res.ToolCalls) != 1 || o.res.Replay == "" && o.res.ToolCalls[0].Signature == "" {
			t.Fatalf("%s: err = %v, result = %+v", name, o.err, o.res)
		}
		req.Messages = append(req.Messages,
			providers.Message{Role: providers.RoleAssistant, ToolCalls: o.res.ToolCalls, Replay: o.res.Replay},
			providers.Message{Role: providers.RoleTool, ToolResults: []providers.ToolResult{{CallID: o.res.ToolCalls[0].ID, Content: "text"}}})
		if o := run(t, p, context.Background(), req); o.err != nil || o.text() != "done" {
			t.Fatalf("%s: second turn: %v", name, o.err)
		}
		second := srv.Requests()[1]
		back := second.Messages[1]
		if back.Role != providers.RoleAssistant || len(back.ToolCalls) != 1 || !strings.Contains(back.Replay, replay) {
			t.Errorf("%s: the answer went back as %+v", name, back)
		}
	}
}
